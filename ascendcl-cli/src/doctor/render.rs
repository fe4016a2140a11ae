//! The report for people: [`Report::to_text`].

use std::fmt::Write as _;

use ascendcl_sys::cann::Layout;

use super::diagnose::driver_check_applies;
use super::facts::{Facts, LibraryFacts, Origin, declared_version, run_mode_key, version_text};
use super::{DRIVER_LIBRARY, ENV_VARS, Report};

fn gib(bytes: usize) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn layout_name(layout: Layout) -> &'static str {
    match layout {
        Layout::Toolkit => "toolkit layout (CANN ≤ 8.3)",
        Layout::Cann85 => "CANN 8.5+ layout",
        Layout::Unrecognised => "unrecognised layout",
    }
}

/// Column at which [`line`] starts values.
const VALUE_COLUMN: usize = 20;

/// Writes `label` indented by `indent` and `value` at [`VALUE_COLUMN`]
/// (after one space if the label is longer), continuation lines aligned.
fn line(out: &mut String, indent: usize, label: &str, value: &str) {
    let width = VALUE_COLUMN
        .saturating_sub(indent + 1)
        .max(label.chars().count());
    let pad = " ".repeat(indent);
    let mut lines = value.lines();
    let first = lines.next().unwrap_or("");
    let _ = writeln!(out, "{pad}{label:<width$} {first}");
    for rest in lines {
        let _ = writeln!(out, "{pad}{:<width$} {rest}", "");
    }
}

fn or_error<T>(result: &Result<T, String>, show: impl Fn(&T) -> String) -> String {
    match result {
        Ok(value) => show(value),
        Err(error) => format!("failed: {error}"),
    }
}

impl Report {
    /// The report for people: what was found, section by section, then the
    /// notes and the problems with what to do.
    pub fn to_text(&self) -> String {
        let facts = &self.facts;
        let mut out = String::from("AscendCL doctor\n");
        for (title, section) in [
            ("library", library as fn(&Facts, &mut String)),
            ("runtime", runtime),
            ("CANN roots (search order)", cann_roots),
            ("environment", environment),
            ("driver", driver),
        ] {
            let _ = writeln!(out, "\n{title}");
            section(facts, &mut out);
        }
        self.notes_and_problems(&mut out);
        out
    }

    /// The notes, then the problems numbered, each with its details and fix.
    fn notes_and_problems(&self, out: &mut String) {
        if !self.notes.is_empty() {
            out.push_str("\nnotes\n");
            for note in &self.notes {
                let _ = writeln!(out, "  - {note}");
            }
        }
        if self.problems.is_empty() {
            out.push_str("\nno problems found\n");
        } else {
            let n = self.problems.len();
            let _ = writeln!(out, "\n{n} problem{} found", if n == 1 { "" } else { "s" });
            for (i, problem) in self.problems.iter().enumerate() {
                let _ = writeln!(out, "  {}. {}", i + 1, problem.summary);
                for detail in &problem.details {
                    for (j, text) in detail.lines().enumerate() {
                        let bullet = if j == 0 { "- " } else { "  " };
                        let _ = writeln!(out, "       {bullet}{text}");
                    }
                }
                let _ = writeln!(out, "     fix: {}", problem.fix);
            }
        }
    }
}

/// The library loaded, how it was chosen and what it exports.
fn library(facts: &Facts, out: &mut String) {
    match &facts.library {
        LibraryFacts::Loaded(lib) => {
            let what = if lib.is_mock {
                " (the ascendcl mock)"
            } else {
                ""
            };
            line(out, 2, "loaded:", &format!("{}{what}", lib.path.display()));
            let how = match &lib.origin {
                Origin::Selected => "selected by the program before the doctor ran",
                Origin::Discovered => "discovery (ASCENDCL_LIBRARY, CANN roots, system loader)",
                Origin::Mock => "--mock: the mock bundled into this binary",
            };
            line(out, 2, "chosen by:", how);
            let total = ascendcl_sys::FUNCTIONS.len();
            let exported = if lib.missing_functions.is_empty() {
                format!("all {total} functions the bindings use")
            } else {
                format!(
                    "{} of {total}; missing: {}",
                    total.saturating_sub(lib.missing_functions.len()),
                    lib.missing_functions.join(", ")
                )
            };
            line(out, 2, "exports:", &exported);
        }
        LibraryFacts::NotFound { attempts } => {
            line(out, 2, "loaded:", "none");
            for attempt in attempts {
                line(out, 4, "tried:", &attempt.to_string());
            }
        }
        LibraryFacts::InvalidFile {
            file,
            source,
            problem,
        } => {
            line(out, 2, "loaded:", "none");
            line(
                out,
                4,
                "refused:",
                &format!("{} (from {source}): {problem}", file.display()),
            );
        }
        LibraryFacts::Unusable { error } => line(out, 2, "loaded:", &format!("none: {error}")),
    }
}

/// What the runtime reports: versions, SoC, run mode, devices and their HBM.
fn runtime(facts: &Facts, out: &mut String) {
    match &facts.runtime {
        None => out.push_str("  not started: no library was loaded\n"),
        Some(Err(error)) => line(out, 2, "aclInit:", &format!("failed: {error}")),
        Some(Ok(rt)) => {
            let declared = version_text(declared_version());
            line(
                out,
                2,
                "ACL interface:",
                &or_error(&rt.version, |&(a, b, c)| {
                    format!("{a}.{b}.{c} (bindings declare {declared})")
                }),
            );
            line(
                out,
                2,
                "CANN version:",
                &or_error(&rt.cann_version, |v| {
                    v.clone()
                        .unwrap_or_else(|| "unknown (the library cannot tell)".into())
                }),
            );
            line(out, 2, "SoC:", &or_error(&rt.soc_name, String::clone));
            line(
                out,
                2,
                "run mode:",
                &or_error(&rt.run_mode, |&m| run_mode_key(m).to_string()),
            );
            line(
                out,
                2,
                "devices:",
                &or_error(&rt.device_count, u32::to_string),
            );
            for device in &rt.devices {
                let memory = or_error(&device.memory, |m| {
                    format!("{} HBM, {} free", gib(m.total), gib(m.free))
                });
                line(out, 4, &format!("device {}:", device.id), &memory);
            }
        }
    }
}

/// Each CANN root searched, with its layout and libraries.
fn cann_roots(facts: &Facts, out: &mut String) {
    for root in &facts.cann_roots {
        let state = match root.layout {
            Some(layout) if root.libraries.is_empty() => layout_name(layout).to_string(),
            Some(layout) => format!(
                "{}, {}",
                layout_name(layout),
                root.libraries
                    .iter()
                    .map(|l| l.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "does not exist".to_string(),
        };
        let _ = writeln!(
            out,
            "  {} — {state} (from {})",
            root.path.display(),
            root.source
        );
    }
}

/// The variables of [`ENV_VARS`], `(not set)` for those that are not.
fn environment(facts: &Facts, out: &mut String) {
    for (name, value) in &facts.env {
        let width = ENV_VARS.iter().map(|v| v.len()).max().unwrap_or(0) + 2;
        let value = value.as_deref().unwrap_or("(not set)");
        let _ = writeln!(out, "  {:<width$}{value}", format!("{name}:"));
    }
}

/// Where the driver library is (or where it was looked for), and the device nodes.
fn driver(facts: &Facts, out: &mut String) {
    let found: Vec<String> = facts
        .driver_dirs
        .iter()
        .filter(|d| d.has_driver_library)
        .map(|d| d.path.join(DRIVER_LIBRARY).display().to_string())
        .collect();
    let applies = driver_check_applies(facts);
    let state = match (found.is_empty(), applies) {
        (false, _) => found.join(", "),
        (true, true) => "not found".to_string(),
        (true, false) => "not found (not needed: no real library and no CANN root)".to_string(),
    };
    line(out, 2, &format!("{DRIVER_LIBRARY}:"), &state);
    for dir in facts
        .driver_dirs
        .iter()
        .filter(|d| d.source != "LD_LIBRARY_PATH")
    {
        let state = if dir.exists {
            "exists"
        } else {
            "does not exist"
        };
        let _ = writeln!(out, "    {} — {state}", dir.path.display());
    }
    let in_path = facts
        .driver_dirs
        .iter()
        .filter(|d| d.source == "LD_LIBRARY_PATH")
        .count();
    let _ = writeln!(out, "    and {in_path} LD_LIBRARY_PATH directories");
    let nodes = if facts.device_nodes.is_empty() {
        "none".to_string()
    } else {
        facts
            .device_nodes
            .iter()
            .map(|n| n.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    line(out, 2, "device nodes:", &nodes);
}
