//! Judging the facts: [`diagnose`] turns them into [`Problem`]s, each with
//! what to do, and [`notes`] into remarks that are not problems. Both are
//! pure: they read only the [`Facts`].

use ascendcl_sys::Attempt;
use ascendcl_sys::cann::{self, Layout};

use super::facts::{Facts, LibraryFacts, Origin, declared_version, version_text};
use super::problem::{Problem, ProblemKind};
use super::{DEFAULT_DRIVER_ROOT, DRIVER_LIBRARY};

const SET_ENV_FIX: &str = "source CANN's environment script: `source /usr/local/Ascend/ascend-toolkit/set_env.sh` \
     (CANN ≤ 8.3) or `source /usr/local/Ascend/cann/set_env.sh` (CANN 8.5+), or set ASCENDCL_LIBRARY \
     to the full path of libascendcl.so (libacl_rt.so on CANN 8.5+)";

const NO_CANN_FIX: &str = "install the CANN toolkit (and the Ascend driver on a machine with a card), then source \
     its set_env.sh; on a machine without CANN, `ascendcl doctor --mock` shows what the tools report on the \
     mock bundled into this binary";

fn attempt_lines(attempts: &[Attempt]) -> Vec<String> {
    attempts.iter().map(|a| format!("tried {a}")).collect()
}

/// Every problem the facts show, most fundamental first. Pure: reads only `facts`.
pub fn diagnose(facts: &Facts) -> Vec<Problem> {
    let mut problems = Vec::new();
    library_problems(facts, &mut problems);
    root_problems(facts, &mut problems);
    runtime_problems(facts, &mut problems);
    driver_problems(facts, &mut problems);
    problems
}

fn library_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    let explicit = facts
        .env_var(ascendcl_sys::LIBRARY_ENV_VAR)
        .filter(|v| !v.is_empty());
    let fix = match explicit {
        Some(path) => format!(
            "ASCENDCL_LIBRARY is set to {path}, and when it is set nothing else is tried: \
             correct it to the path of libascendcl.so (libacl_rt.so on CANN 8.5+) or unset it"
        ),
        None => SET_ENV_FIX.to_string(),
    };
    match &facts.library {
        LibraryFacts::NotFound { attempts } => {
            // Without a sign of CANN the first fix is to install it; with
            // one, the install is not where the loader looks.
            let evidence = facts.install_evidence();
            let mut details = attempt_lines(attempts);
            let fix = if explicit.is_some() {
                fix
            } else if evidence.is_empty() {
                details.push("no sign of a CANN install on this machine".to_string());
                format!("{NO_CANN_FIX}; if CANN is installed elsewhere, {SET_ENV_FIX}")
            } else {
                details.push(format!(
                    "a CANN install seems present: {}",
                    evidence.join("; ")
                ));
                fix
            };
            problems.push(Problem::new(
                ProblemKind::LibraryNotFound,
                "no AscendCL library could be loaded".into(),
                details,
                fix,
            ))
        }
        LibraryFacts::InvalidFile {
            file,
            source,
            problem,
        } => problems.push(Problem::new(
            ProblemKind::LibraryInvalid,
            format!(
                "{} (named by {source}) is not a usable shared library",
                file.display()
            ),
            vec![problem.to_string()],
            format!(
                "{}, or set {source} to another file (or unset it to search the CANN roots)",
                problem.fix()
            ),
        )),
        LibraryFacts::Unusable { error } => problems.push(Problem::new(
            ProblemKind::LibraryUnusable,
            "the AscendCL library could not be loaded".into(),
            vec![error.clone()],
            if error.starts_with(crate::bundled::BUNDLE_ERROR_PREFIX) {
                "set XDG_CACHE_HOME to a writable directory (the bundled mock is written there)"
                    .into()
            } else {
                "a process uses one AscendCL library: run the doctor on its own".into()
            },
        )),
        LibraryFacts::Loaded(loaded) => {
            if let Some(Err(error)) = &facts.runtime {
                problems.push(Problem::new(
                    ProblemKind::LibraryUnusable,
                    format!(
                        "{} was loaded but ACL could not be initialised",
                        loaded.path.display()
                    ),
                    vec![error.clone()],
                    "check that the driver is installed and matches this CANN (`npu-smi info`), \
                     and that the variables of CANN's set_env.sh are set in this shell"
                        .into(),
                ));
            }
        }
    }
}

fn root_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    for root in &facts.cann_roots {
        let named_by_variable = cann::ROOT_ENV_VARS.contains(&root.source.as_str());
        if !root.exists && named_by_variable {
            problems.push(Problem::new(
                ProblemKind::RootMissing,
                format!(
                    "{} is set to {}, which does not exist",
                    root.source,
                    root.path.display()
                ),
                Vec::new(),
                format!(
                    "set {} to the CANN install (the directory holding set_env.sh), \
                     by sourcing that set_env.sh again, or unset it",
                    root.source
                ),
            ));
        }
        if root.exists && root.layout == Some(Layout::Unrecognised) {
            let fix = if named_by_variable {
                format!(
                    "point {} at a CANN root: the directory holding set_env.sh, such as \
                     /usr/local/Ascend/ascend-toolkit/latest (CANN ≤ 8.3) or /usr/local/Ascend/cann (CANN 8.5+)",
                    root.source
                )
            } else {
                "this directory is searched by default: repair the CANN install there \
                 (reinstall the toolkit), or remove it if it is a leftover of an uninstall"
                    .to_string()
            };
            problems.push(Problem::new(
                ProblemKind::UnrecognisedRoot,
                format!(
                    "{} (from {}) exists but is not a CANN install this crate recognises",
                    root.path.display(),
                    root.source
                ),
                vec![
                    "neither lib64/libascendcl.so (toolkit layout), lib64/libacl_rt.so (CANN 8.5+) \
                     nor include/acl/acl.h is there"
                        .into(),
                ],
                fix,
            ));
        }
    }
}

fn runtime_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    let Some(loaded) = facts.loaded() else {
        return;
    };
    let runtime = facts.runtime_facts();
    let missing = &loaded.missing_functions;
    let declared = declared_version();
    let version = runtime
        .and_then(|r| r.version.as_ref().ok())
        .map(|&(a, b, c)| (i64::from(a), i64::from(b), i64::from(c)));
    let missing_line = || {
        format!(
            "{} of the {} functions the bindings use are missing: {}",
            missing.len(),
            ascendcl_sys::FUNCTIONS.len(),
            missing.join(", ")
        )
    };
    match version {
        Some(v) if v < declared && !missing.is_empty() => problems.push(Problem::new(
            ProblemKind::VersionMismatch,
            format!(
                "the library's ACL interface is {}, older than the {} these bindings declare (CANN 8.5.0)",
                version_text(v),
                version_text(declared)
            ),
            vec![missing_line()],
            "upgrade CANN (and the driver) to 8.5.0 or newer; until then, calls that need \
             these functions fail with Error::Symbol"
                .into(),
        )),
        Some(v) if v.0 > declared.0 => problems.push(Problem::new(
            ProblemKind::VersionMismatch,
            format!(
                "the library's ACL interface is {}, a newer major version than the {} these bindings declare",
                version_text(v),
                version_text(declared)
            ),
            Vec::new(),
            "function signatures may have changed: build with `--features ascendcl-sys/bindgen` \
             against this CANN, which checks every signature at compile time"
                .into(),
        )),
        _ if !missing.is_empty() => problems.push(Problem::new(
            ProblemKind::MissingFunctions,
            format!(
                "{} does not export every function the bindings use",
                loaded.path.display()
            ),
            vec![missing_line()],
            "on CANN 8.5+ the runtime API lives in libacl_rt.so: point ASCENDCL_LIBRARY at it, \
             or upgrade CANN; calls that need these functions fail with Error::Symbol"
                .into(),
        )),
        _ => {}
    }

    let Some(runtime) = runtime else {
        return;
    };
    let mut failed = Vec::new();
    let mut note = |what: &str, result: Result<(), &String>| {
        if let Err(error) = result {
            failed.push(format!("{what}: {error}"));
        }
    };
    note("aclrtGetVersion", runtime.version.as_ref().map(drop));
    note("CANN version", runtime.cann_version.as_ref().map(drop));
    note("aclrtGetSocName", runtime.soc_name.as_ref().map(drop));
    note("aclrtGetRunMode", runtime.run_mode.as_ref().map(drop));
    note(
        "aclrtGetDeviceCount",
        runtime.device_count.as_ref().map(drop),
    );
    if !failed.is_empty() {
        problems.push(Problem::new(
            ProblemKind::QueryFailed,
            format!("{} runtime queries failed", failed.len()),
            failed,
            "the runtime messages above say why; a missing or mismatched driver is the usual cause \
             (`npu-smi info` should list the cards)"
                .into(),
        ));
    }

    if runtime.device_count == Ok(0) {
        let visible = facts.env_var("ASCEND_RT_VISIBLE_DEVICES");
        let fix = match visible {
            Some(value) => format!(
                "ASCEND_RT_VISIBLE_DEVICES is set to \"{value}\" and hides every other device: \
                 unset it or list ids that `npu-smi info` shows"
            ),
            None if facts.device_nodes.is_empty() => {
                "there is no /dev/davinci<N> device node: the driver is not loaded \
                 (check `npu-smi info`, reinstall the driver), or in a container the devices were not \
                 passed in (--device /dev/davinci0 --device /dev/davinci_manager \
                 --device /dev/devmm_svm --device /dev/hisi_hdc)"
                    .to_string()
            }
            None => format!(
                "{} device nodes exist, but the runtime sees none: check `npu-smi info`, and that \
                 this user may open /dev/davinci* (the HwHiAiUser group)",
                facts.device_nodes.len()
            ),
        };
        problems.push(Problem::new(
            ProblemKind::NoDevices,
            "the runtime sees no device".into(),
            Vec::new(),
            fix,
        ));
    }

    let unavailable: Vec<String> = runtime
        .devices
        .iter()
        .filter_map(|d| {
            d.memory
                .as_ref()
                .err()
                .map(|e| format!("device {}: {e}", d.id))
        })
        .collect();
    if !unavailable.is_empty() {
        problems.push(Problem::new(
            ProblemKind::DeviceUnavailable,
            format!(
                "{} of {} devices could not be opened or queried",
                unavailable.len(),
                runtime.devices.len()
            ),
            unavailable,
            "another process may hold the device exclusively, or it is in a fault state: check \
             `npu-smi info`; ASCEND_RT_VISIBLE_DEVICES can hide devices from this process"
                .into(),
        ));
    }
}

/// Whether the driver check applies: a real library was loaded, or a CANN
/// root exists (on a machine with neither, there is nothing to check).
pub fn driver_check_applies(facts: &Facts) -> bool {
    facts.loaded().is_some_and(|l| !l.is_mock) || facts.cann_roots.iter().any(|r| r.exists)
}

fn driver_problems(facts: &Facts, problems: &mut Vec<Problem>) {
    if !driver_check_applies(facts) || facts.driver_dirs.iter().any(|d| d.has_driver_library) {
        return;
    }
    let details = facts
        .driver_dirs
        .iter()
        .filter(|d| d.source != "LD_LIBRARY_PATH")
        .map(|d| {
            let state = if d.exists {
                format!("exists, but holds no {DRIVER_LIBRARY}")
            } else {
                "does not exist".to_string()
            };
            format!("{}: {state}", d.path.display())
        })
        .chain(std::iter::once(
            match facts
                .driver_dirs
                .iter()
                .filter(|d| d.source == "LD_LIBRARY_PATH")
                .count()
            {
                0 => "LD_LIBRARY_PATH names no directory".to_string(),
                n => format!("nor in any of the {n} LD_LIBRARY_PATH directories"),
            },
        ))
        .collect();
    problems.push(Problem::new(
        ProblemKind::DriverMissing,
        format!("the driver library {DRIVER_LIBRARY} was not found"),
        details,
        format!(
            "install the Ascend driver (Ascend-hdk-*-npu-driver_*.run, into {DEFAULT_DRIVER_ROOT} by default), \
             or add its lib64/driver and lib64/common directories to LD_LIBRARY_PATH (CANN's set_env.sh does)"
        ),
    ));
}

/// Remarks that are not problems (running on the mock, a newer library).
pub fn notes(facts: &Facts) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(loaded) = facts.loaded() else {
        return notes;
    };
    if loaded.origin == Origin::Mock {
        notes.push(
            "--mock: the library is the mock bundled into this binary; the CANN roots, driver \
             directories and device nodes are still this machine's"
                .into(),
        );
    }
    if loaded.is_mock {
        notes.push(
            "running on the ascendcl behavioural mock: the versions, SoC name, device count and HBM \
             sizes are the mock's (ASCENDCL_MOCK_* variables), not a device's"
                .into(),
        );
    }
    let declared = declared_version();
    if let Some(Ok((a, b, c))) = facts.runtime_facts().map(|r| &r.version) {
        let v = (i64::from(*a), i64::from(*b), i64::from(*c));
        if v > declared && v.0 == declared.0 {
            notes.push(format!(
                "the library's ACL interface {} is newer than the {} the bindings declare: \
                 compatible, newer functions are simply not used",
                version_text(v),
                version_text(declared)
            ));
        } else if v < declared && loaded.missing_functions.is_empty() {
            notes.push(format!(
                "the library's ACL interface {} is older than the {} the bindings declare, \
                 but exports every function they use",
                version_text(v),
                version_text(declared)
            ));
        }
    }
    notes
}
