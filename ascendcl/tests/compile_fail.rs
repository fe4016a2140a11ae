//! Misuse of the async-safety contract must not compile. Each case in
//! `tests/compile_fail/` breaks one rule; its `.stderr` is the expected error.

#[test]
fn contract_violations_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile_fail/*.rs");
}
