//! Reading criterion's results (`target/criterion/<group>/<bench>/new/estimates.json`).

use std::path::Path;

/// The median (ns) of one criterion benchmark, if it has been run.
pub fn median_ns(criterion_dir: &Path, group: &str, bench: &str) -> Option<f64> {
    let dir = criterion_dir
        .join(group.replace('/', "_"))
        .join(bench.replace('/', "_"));
    let dir = if group.is_empty() && bench.is_empty() {
        criterion_dir.to_path_buf()
    } else {
        dir
    };
    let text = std::fs::read_to_string(dir.join("new").join("estimates.json")).ok()?;
    // {"mean":{...},"median":{"confidence_interval":{...},"point_estimate":123.4,...},...}
    let median = &text[text.find("\"median\"")?..];
    let value = &median[median.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = value.find([',', '}']).unwrap_or(value.len());
    value[..end].trim().parse().ok()
}

/// Every benchmark under `group` that has results, as `(id, median ns)`
/// sorted by id; the id is the path below the group (criterion stores `/`
/// in ids as `_` at the first level and as directories below).
pub fn group_medians(criterion_dir: &Path, group: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    walk(
        &criterion_dir.join(group.replace('/', "_")),
        String::new(),
        &mut out,
    );
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn walk(dir: &Path, id: String, out: &mut Vec<(String, f64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name == "report" || !path.is_dir() {
            continue;
        }
        if name == "new" {
            if let Some(median) = median_ns(dir, "", "") {
                out.push((id.clone(), median));
            }
            continue;
        }
        let child = if id.is_empty() {
            name
        } else {
            format!("{id}/{name}")
        };
        walk(&path, child, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_point_estimate_is_read_from_estimates_json() {
        let dir = std::env::temp_dir().join(format!("ascendcl-criterion-{}", std::process::id()));
        let leaf = dir.join("overhead").join("raw_stream_query").join("new");
        std::fs::create_dir_all(&leaf).unwrap();
        std::fs::write(
            leaf.join("estimates.json"),
            r#"{"mean":{"point_estimate":400.0},"median":{"confidence_interval":{"lower_bound":1.0},"point_estimate":352.5,"standard_error":2.0}}"#,
        )
        .unwrap();
        assert_eq!(median_ns(&dir, "overhead", "raw/stream_query"), Some(352.5));
        assert_eq!(median_ns(&dir, "overhead", "safe/stream_query"), None);
        assert_eq!(
            group_medians(&dir, "overhead"),
            vec![("raw_stream_query".to_string(), 352.5)]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
