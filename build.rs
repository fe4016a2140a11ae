//! Build script of the root package (the examples; the benches of
//! ascendcl-benches and train_resnet of ascendcl-cli use it through
//! `ascendcl_examples::runtime()`).
//!
//! It tells the examples and benches where the mock `libascendcl.so` is, so
//! that they run on the mock when no CANN install is found. The library
//! crates never do this: only these programs choose the mock.
//!
//! # Environment variables read
//! | variable | effect |
//! |---|---|
//! | `DEP_ASCENDCL_MOCK_LIBRARY` | set by Cargo from ascendcl-mock's `library` metadata |
//!
//! # Published
//! * `rustc-env` `ASCENDCL_MOCK_LIBRARY`: path of the mock library.

fn main() {
    println!("cargo::rerun-if-env-changed=DEP_ASCENDCL_MOCK_LIBRARY");
    let mock = std::env::var("DEP_ASCENDCL_MOCK_LIBRARY")
        .expect("ascendcl-mock publishes its library path");
    println!("cargo::rustc-env=ASCENDCL_MOCK_LIBRARY={mock}");
}
