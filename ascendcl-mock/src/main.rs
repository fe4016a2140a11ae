//! `ascendcl-mock`: puts the mock's libraries where C, C++ and Python
//! programs can find them.
//!
//! ```text
//! ascendcl-mock install --prefix DIR   # DIR/lib/*.so, DIR/include/*.h; prints the exports
//! ascendcl-mock path [NAME]            # where this build put them (changes between builds)
//! ascendcl-mock list                   # every library, with what it is
//! ```
//!
//! `install` writes copies embedded in the binary, so it works from a
//! `cargo install`ed binary whose build directory is gone.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command, value_parser};

fn command() -> Command {
    Command::new("ascendcl-mock")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Install the ascendcl behavioural mock (libascendcl.so and friends) for C, C++ and Python programs")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("install")
                .about("Write every mock library to PREFIX/lib and the C headers to PREFIX/include, then print the shell exports")
                .arg(
                    Arg::new("prefix")
                        .long("prefix")
                        .value_name("DIR")
                        .required(true)
                        .value_parser(value_parser!(PathBuf))
                        .help("Directory to install into (created if missing), e.g. $HOME/.local/ascendcl-mock"),
                )
                .arg(
                    Arg::new("quiet")
                        .long("quiet")
                        .short('q')
                        .action(ArgAction::SetTrue)
                        .help("Print only the export lines (for `eval \"$(ascendcl-mock install --prefix DIR -q)\"`)"),
                ),
        )
        .subcommand(
            Command::new("path")
                .about("Print where this build put the libraries (a directory whose name changes between builds; `install` gives a stable one)")
                .arg(
                    Arg::new("name")
                        .value_name("NAME")
                        .help("A library file name (see `list`): print its path instead of the directory"),
                ),
        )
        .subcommand(Command::new("list").about("List every mock library, with what it is"))
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    match matches.subcommand() {
        Some(("install", args)) => {
            let prefix = args
                .get_one::<PathBuf>("prefix")
                .expect("--prefix is required");
            match ascendcl_mock::install(prefix) {
                Ok(installed) => {
                    if !args.get_flag("quiet") {
                        println!("installed {} files:", installed.files.len());
                        for file in &installed.files {
                            println!("  {}", file.display());
                        }
                        println!("use it with:");
                    }
                    print!("{}", installed.shell_exports());
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("ascendcl-mock install: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(("path", args)) => {
            let path = match args.get_one::<String>("name") {
                None => ascendcl_mock::library_dir().to_path_buf(),
                Some(name) => match ascendcl_mock::find_library(name) {
                    Some(library) => PathBuf::from(library.path),
                    None => {
                        let known: Vec<&str> =
                            ascendcl_mock::LIBRARIES.iter().map(|l| l.name).collect();
                        eprintln!(
                            "ascendcl-mock path: no mock library is called {name:?}; the libraries are: {}",
                            known.join(", ")
                        );
                        return ExitCode::from(2);
                    }
                },
            };
            if !path.exists() {
                eprintln!(
                    "ascendcl-mock path: {} no longer exists (its build directory is gone, as after \
                     `cargo install`); use `ascendcl-mock install --prefix DIR` for a stable copy",
                    path.display()
                );
                return ExitCode::FAILURE;
            }
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Some(("list", _)) => {
            for library in ascendcl_mock::LIBRARIES {
                println!("{:<24} {}", library.name, library.what);
            }
            ExitCode::SUCCESS
        }
        _ => unreachable!("clap requires a known subcommand"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn command_line_definition_is_consistent() {
        super::command().debug_assert();
    }
}
