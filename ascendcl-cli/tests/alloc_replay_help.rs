//! `ascendcl alloc-replay --help` and the CLI README describe the strategies
//! the command prints: every one by name, and as many as there are.

use ascendcl_cli::parse_from;
use ascendcl_cli::replay::Strategy;

#[test]
fn alloc_replay_help_and_readme_name_every_strategy_it_prints() {
    let help = match parse_from(["ascendcl", "alloc-replay", "--help"]) {
        Err(output) => output.stdout,
        Ok(cli) => panic!("--help parsed as a command: {cli:?}"),
    };
    // The count in words: a new strategy must update the help and the README.
    assert_eq!(
        Strategy::ALL.len(),
        4,
        "update the count below and the help"
    );
    assert!(
        help.contains("through four allocation strategies"),
        "{help}"
    );
    for strategy in Strategy::ALL {
        assert!(
            help.contains(strategy.name()),
            "{} not in {help}",
            strategy.name()
        );
    }
    let readme = include_str!("../README.md");
    assert!(
        readme.contains("through four allocation strategies"),
        "{readme}"
    );
    assert!(!readme.contains("three allocators"));
}
