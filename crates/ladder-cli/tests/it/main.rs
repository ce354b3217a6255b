//! End-to-end tests of the `ladder` binary against temporary ledgers.

mod audit;
mod audit_doc;
mod bad_input;
mod cli_habits;
mod explain_json;
mod faults;
mod ledger;
mod perf;
mod replay;
mod support;
