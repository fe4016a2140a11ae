//! The case count check of a golden set: the case directories, counted per
//! op, must be exactly what the generator wrote into the set's `CASES.txt`,
//! so a deleted (or stray) case fails instead of lowering a `ran >= N` floor.

use std::collections::BTreeMap;
use std::path::Path;

/// `CASES.txt` of the set at `root`: op -> number of cases.
pub fn listed_counts(root: &Path) -> Result<BTreeMap<String, usize>, String> {
    let path = root.join("CASES.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut counts = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = line
            .split_once(' ')
            .and_then(|(op, n)| Some((op.to_owned(), n.trim().parse::<usize>().ok()?)));
        let (op, n) = parsed.ok_or_else(|| format!("{}: bad line {line:?}", path.display()))?;
        counts.insert(op, n);
    }
    Ok(counts)
}

/// The case directories of the set at `root` (those with a `case.txt`),
/// counted by the op their manifest names.
pub fn present_counts(root: &Path) -> Result<BTreeMap<String, usize>, String> {
    let mut counts = BTreeMap::new();
    let entries = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    for entry in entries {
        let manifest = entry.map_err(|e| e.to_string())?.path().join("case.txt");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let op = text
            .lines()
            .find_map(|l| l.strip_prefix("op "))
            .ok_or_else(|| format!("{}: no `op` line", manifest.display()))?;
        *counts.entry(op.trim().to_owned()).or_insert(0) += 1;
    }
    Ok(counts)
}

/// The number of cases, once the directories match `CASES.txt` op by op;
/// otherwise every op whose count differs.
pub fn check_counts(root: &Path) -> Result<usize, String> {
    let listed = listed_counts(root)?;
    let present = present_counts(root)?;
    if listed == present {
        return Ok(listed.values().sum());
    }
    let ops: std::collections::BTreeSet<&String> = listed.keys().chain(present.keys()).collect();
    let differences: Vec<String> = ops
        .into_iter()
        .filter_map(|op| {
            let (l, p) = (
                listed.get(op).copied().unwrap_or(0),
                present.get(op).copied().unwrap_or(0),
            );
            (l != p).then(|| format!("{op}: CASES.txt lists {l}, {p} case directories"))
        })
        .collect();
    Err(format!(
        "{} does not hold the cases its CASES.txt lists (deleted or added without \
         regenerating?): {}",
        root.display(),
        differences.join("; ")
    ))
}
