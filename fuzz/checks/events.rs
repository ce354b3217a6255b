//! What one fuzz input means for the stored-event decoder (`ladder_events::codec::decode`).
//!
//! Shared, through `#[path]`, by the libFuzzer target `fuzz/fuzz_targets/event_decoder.rs` and by
//! the corpus replay test of `ladder-events`, so CI replays exactly what the fuzzer ran.

use ladder_events::codec::{decode, encode};

/// Decodes `data` as stored bytes. Must not panic. Bytes that decode are an event whose own
/// encoding decodes to the same encoding (the header and payload survive a store round trip),
/// and whatever `ladder log` and the append rules do with a stored event does not panic either.
pub fn event_decoder(data: &[u8]) {
    // The in-place reader accepts exactly what the decoder accepts, with the same event and the
    // same error (compared through `encode`, so a NaN score compares equal to itself).
    match (ladder_events::codec::view(data), decode(data)) {
        (Ok(v), Ok(d)) => assert_eq!(encode(&v.to_event()), encode(&d), "view and decode differ"),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "view and decode say why apart")
        }
        (v, d) => panic!("view {:?} but decode {:?}", v.map(|v| v.to_event()), d),
    }
    match decode(data) {
        Ok(event) => {
            let bytes = encode(&event);
            let again = decode(&bytes).expect("an encoded event decodes");
            assert_eq!(encode(&again), bytes, "encode(decode(encode(e))) differs from encode(e)");
            // A stored event is printed and re-checked; neither may panic on odd stored values.
            let _line = ladder_events::json::to_line(&event);
            let _rules = event.check();
        }
        Err(e) => assert!(!e.to_string().is_empty(), "a decode error says why"),
    }
}
