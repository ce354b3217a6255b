//! The constants of contract section 3: keys, defaults, ranges and clashes.

use ladder_glicko::{glicko, glicko2, Glicko, Glicko2};
use ladder_projector::{Config, ConfigError, ParamKind};

fn sets(text: &str) -> Vec<(String, String)> {
    Config::parse_assignments(text).unwrap()
}

#[test]
fn keys_and_defaults_are_the_contracts() {
    let keys = |specs: &[ladder_projector::ParamSpec]| {
        specs.iter().map(|s| (s.key, s.default)).collect::<Vec<_>>()
    };
    assert_eq!(
        keys(glicko::PARAMS),
        [
            ("c", "34.64"),
            ("period", "1d"),
            ("idle", "1d"),
            ("rd_max", "350"),
            ("provisional_rd", "100"),
            ("initial_rating", "1500"),
            ("initial_rd", "350")
        ]
    );
    assert_eq!(
        keys(glicko2::PARAMS),
        [
            ("tau", "0.5"),
            ("sigma", "0.06"),
            ("epsilon", "1e-6"),
            ("period", "1d"),
            ("idle", "1d"),
            ("rd_max", "350"),
            ("provisional_rd", "100"),
            ("initial_rating", "1500"),
            ("initial_rd", "350")
        ]
    );
    // c >= 0; tau, sigma, epsilon > 0.
    assert!(matches!(
        glicko::PARAMS[0].kind,
        ParamKind::Number { min: 0.0, min_inclusive: true, .. }
    ));
    for spec in &glicko2::PARAMS[..3] {
        assert!(matches!(spec.kind, ParamKind::Number { min: 0.0, min_inclusive: false, .. }));
    }
    // The documented default c: seed 001's rule, RD 50 back to 350 in 100 periods.
    let c = glicko::DEFAULT_C;
    let periods = (350.0f64 * 350.0 - 50.0 * 50.0) / (c * c);
    assert!((periods - 100.0).abs() < 0.01, "{periods}");
    assert_eq!(c.to_string(), glicko::PARAMS[0].default);
}

#[test]
fn out_of_range_and_clashing_values_are_refused() {
    for bad in ["c=-1", "period=0d", "period=1.5d", "idle=game", "rd_max=0", "initial_rd=-5"] {
        assert!(
            matches!(Glicko::configure(&sets(bad)), Err(ConfigError::BadValue { .. })),
            "{bad}"
        );
    }
    for bad in ["tau=0", "sigma=-0.1", "epsilon=0", "epsilon=nan"] {
        assert!(
            matches!(Glicko2::configure(&sets(bad)), Err(ConfigError::BadValue { .. })),
            "{bad}"
        );
    }
    assert!(matches!(Glicko::configure(&sets("tau=0.5")), Err(ConfigError::UnknownKey { .. })));
    let clash = Glicko2::configure(&sets("initial_rd=400")).unwrap_err();
    assert!(matches!(clash, ConfigError::Inconsistent { .. }));
    assert!(clash.to_string().contains("initial_rd=400 is above rd_max=350"), "{clash}");
    assert!(Glicko::configure(&sets("initial_rd=400,rd_max=500")).is_ok());
    // A configuration of another algorithm is refused rather than panicking later.
    let other = Config::new("glicko", glicko::PARAMS, &[]).unwrap();
    assert!(matches!(Glicko2::new(other), Err(ConfigError::Inconsistent { .. })));
}
