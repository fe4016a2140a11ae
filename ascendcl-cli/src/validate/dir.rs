//! Directory mode of `ascendcl validate`: `ascendcl validate EXPECTED_DIR
//! ACTUAL_DIR` compares every `.npy` file of the first directory with the
//! file of the same name in the second, one verdict line per tensor, and
//! names the first tensor (in file-name order) that drifts. Name the files
//! by layer order (`03_block1.npy`) and that is the first layer to look at.

use std::path::Path;

use ascendcl::tensor_file::read_npy;
use ascendcl::validate::{CompareOptions, ValidateError, Verdict, compare};

use crate::json::quote as json_string;

/// One tensor's outcome.
struct Row {
    name: String,
    outcome: Result<(Verdict, f64, f64, Vec<usize>), String>,
}

impl Row {
    fn passes(&self) -> bool {
        matches!(&self.outcome, Ok((v, ..)) if v.passes())
    }
}

/// The `.npy` file names of `dir`, sorted.
fn npy_names(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".npy"))
        .collect();
    names.sort();
    Ok(names)
}

/// Compares the two directories; returns (exit code, stdout).
pub(crate) fn compare_dirs(
    expected: &Path,
    actual: &Path,
    options: &CompareOptions,
    json: bool,
) -> Result<(u8, String), String> {
    let names = npy_names(expected)?;
    if names.is_empty() {
        return Err(format!("{} holds no .npy file", expected.display()));
    }
    let theirs = npy_names(actual)?;
    let rows: Vec<Row> = names
        .iter()
        .map(|name| {
            let outcome = if !theirs.contains(name) {
                Err(format!("missing in {}", actual.display()))
            } else {
                read_npy(expected.join(name))
                    .and_then(|e| read_npy(actual.join(name)).map(|a| (e, a)))
                    .map_err(ValidateError::from)
                    .and_then(|(e, a)| compare(&e, &a, options))
                    .map(|r| (r.verdict, r.max_abs_error, r.max_rel_error, r.shape))
                    .map_err(|e| e.to_string())
            };
            Row {
                name: name.clone(),
                outcome,
            }
        })
        .collect();
    let extra: Vec<&String> = theirs.iter().filter(|n| !names.contains(n)).collect();
    let failing = rows.iter().filter(|r| !r.passes()).count();
    let first = rows.iter().find(|r| !r.passes()).map(|r| r.name.clone());
    let exit = if failing == 0 {
        super::EXIT_PASS
    } else {
        super::EXIT_FAIL
    };
    let out = if json {
        let items: Vec<String> = rows
            .iter()
            .map(|r| match &r.outcome {
                Ok((v, abs, rel, shape)) => format!(
                    "{{\"name\":{},\"shape\":{shape:?},\"max_abs_error\":{abs:e},\"max_rel_error\":{rel:e},\"verdict\":{}}}",
                    json_string(&r.name),
                    json_string(v.as_str())
                ),
                Err(why) => format!("{{\"name\":{},\"error\":{}}}", json_string(&r.name), json_string(why)),
            })
            .collect();
        let first = first.as_deref().map_or("null".to_owned(), json_string);
        let extra: Vec<String> = extra.iter().map(|n| json_string(n)).collect();
        format!(
            "{{\"tensors\":[{}],\"failing\":{failing},\"first_drift\":{first},\"only_in_actual\":[{}],\"exit_code\":{exit}}}\n",
            items.join(","),
            extra.join(",")
        )
    } else {
        let mut text = format!(
            "expected: {}\nactual:   {}\n\n",
            expected.display(),
            actual.display()
        );
        for r in &rows {
            let line = match &r.outcome {
                Ok((v, abs, rel, shape)) => {
                    // enough digits to stay on the verdict's side of each limit
                    let show = |x: f64| options.thresholds.format_error(x);
                    format!(
                        "{:<32} {:>18} max abs {:>10} max rel {:>10}  {v}",
                        r.name,
                        format!("{shape:?}"),
                        show(*abs),
                        show(*rel)
                    )
                }
                Err(why) => format!("{:<32} error: {why}", r.name),
            };
            text.push_str(&line);
            text.push('\n');
        }
        for n in &extra {
            text.push_str(&format!("{n:<32} only in ACTUAL (not compared)\n"));
        }
        text.push_str(&format!("\n{} tensors, {failing} failing", rows.len()));
        match &first {
            Some(name) => text.push_str(&format!("; first to drift: {name}\n")),
            None => text.push_str("; no drift\n"),
        }
        text
    };
    Ok((exit, out))
}
