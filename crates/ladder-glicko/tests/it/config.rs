//! The constants of docs/spec.md: keys, defaults, ranges and clashes.

use ladder_glicko::{glicko, glicko2, Glicko, Glicko2};
use ladder_projector::{Algorithm, Config, ConfigError, ParamKind};

fn sets(text: &str) -> Vec<(String, String)> {
    Config::parse_assignments(text).unwrap()
}

#[test]
fn keys_and_defaults_are_the_documented_ones() {
    let keys = |specs: &[ladder_projector::ParamSpec]| {
        specs.iter().map(|s| (s.key, s.default)).collect::<Vec<_>>()
    };
    assert_eq!(
        keys(glicko::PARAMS),
        [
            ("c", "6"),
            ("period", "5d"),
            ("idle", "1d"),
            ("rd_max", "350"),
            ("provisional_rd", "100"),
            ("initial_rating", "1500"),
            ("initial_rd", "350"),
            ("home", "0"),
            ("revert", "0"),
            ("revert_after", "90d")
        ]
    );
    assert_eq!(
        keys(glicko2::PARAMS),
        [
            ("tau", "0.5"),
            ("sigma", "0.06"),
            ("epsilon", "1e-6"),
            ("period", "10d"),
            ("idle", "1d"),
            ("rd_max", "350"),
            ("provisional_rd", "100"),
            ("initial_rating", "1500"),
            ("initial_rd", "350"),
            ("home", "0"),
            ("revert", "0"),
            ("revert_after", "90d")
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
    // The documented defaults (docs/real-ladders.md) are the tables' own.
    assert_eq!(glicko::DEFAULT_C.to_string(), glicko::PARAMS[0].default);
    assert_eq!(glicko::DEFAULT_PERIOD, glicko::PARAMS[1].default);
    assert_eq!(glicko2::DEFAULT_PERIOD, glicko2::PARAMS[3].default);
    // What the Glicko default means: c = 6 per 5-day period lets RD 50 grow to
    // sqrt(50^2 + 6^2 * 73) = 71.6 over a year away (73 periods), not back to 350.
    let year = (50.0f64 * 50.0 + glicko::DEFAULT_C * glicko::DEFAULT_C * 73.0).sqrt();
    assert!((year - 71.61).abs() < 0.01, "{year}");
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
