//! The `jsonl_import` and `csv_import` fuzz targets' corpora and regressions, replayed through
//! the same checks the fuzzer runs (`fuzz/checks/import.rs`; docs/fuzzing.md).

#[path = "../../../../fuzz/checks/import.rs"]
mod checks;
#[path = "../../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn jsonl_inputs_import_or_refuse_without_panicking() {
    replay::replay("jsonl_import", checks::jsonl_import);
}

#[test]
fn csv_inputs_import_or_refuse_without_panicking() {
    replay::replay("csv_import", checks::csv_import);
}
