//! ladder-serve's integration tests: the routes in process (`tower::ServiceExt::oneshot`), the
//! warm folds against fresh replays, and a real server on 127.0.0.1:0 with concurrent clients
//! and a mirror; the pages in headless Chromium.

mod browser;
mod common;
mod fuzz;
mod live;
mod pages;
mod routes;
mod warm;
