//! End-to-end tests of the `ladder` binary against temporary ledgers.

mod architecture_doc;
mod audit;
mod audit_doc;
mod bad_input;
mod cli_habits;
mod closed_stdout;
mod docs_examples;
mod explain_json;
mod faults;
mod folded;
mod friction;
mod home;
mod inputs;
mod integrity;
mod ledger;
mod perf;
mod predict_from;
mod proofs;
mod replay;
mod serve;
mod standings;
mod support;
mod tlog;
mod ttt;
mod wenglin;
