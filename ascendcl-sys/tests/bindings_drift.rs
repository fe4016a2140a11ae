//! The committed bindings are exactly what bindgen makes of our header today,
//! and our declarations agree item by item with CANN's headers when an
//! install is present.
//!
//! Needs libclang (and CANN's headers, for the comparisons with CANN). The
//! build script looks for both: when one is missing the tests that need it
//! are marked ignored with the reason, so `cargo test` shows them as
//! `ignored`, not `ok`. `ASCENDCL_REQUIRE_LIBCLANG=1` (set by CI) makes them
//! run anyway, and fail if libclang cannot be loaded.
//! `ASCENDCL_BLESS_BINDINGS=1` rewrites the committed files instead of comparing.

#[allow(dead_code)]
#[path = "../bindgen_config.rs"]
mod bindgen_config;

#[allow(dead_code)]
#[path = "../bindgen_headers.rs"]
mod bindgen_headers;

#[allow(dead_code)]
#[path = "../src/cann.rs"]
mod cann;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bindgen_config::Pass;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs bindgen, or returns None when libclang cannot be loaded and CI does
/// not require it.
fn generate(include: &Path, pass: Pass) -> Option<String> {
    let result = std::panic::catch_unwind(|| bindgen_config::builder(include, pass).generate());
    match result {
        Ok(Ok(bindings)) => Some(bindings.to_string()),
        Ok(Err(e)) => panic!("bindgen failed on {}: {e}", include.display()),
        Err(_) if std::env::var_os("ASCENDCL_REQUIRE_LIBCLANG").is_some() => {
            panic!(
                "libclang is required (ASCENDCL_REQUIRE_LIBCLANG is set) but could not be loaded"
            )
        }
        Err(_) => {
            eprintln!("skipped: libclang not found (Debian: apt-get install libclang-dev)");
            None
        }
    }
}

#[test]
#[cfg_attr(
    not(ascendcl_libclang),
    ignore = "needs libclang, not found when ascendcl-sys was built (Debian: apt-get install libclang-dev)"
)]
fn committed_bindings_equal_a_fresh_generation_from_our_header() {
    let include = crate_dir().join("include");
    for pass in Pass::ALL {
        let Some(fresh) = generate(&include, pass) else {
            return;
        };
        let committed_path = crate_dir().join("src/bindings").join(pass.file_name());
        if std::env::var_os("ASCENDCL_BLESS_BINDINGS").is_some() {
            std::fs::write(&committed_path, &fresh).expect("write committed bindings");
            continue;
        }
        let committed = std::fs::read_to_string(&committed_path).expect("read committed bindings");
        if committed != fresh {
            let first = committed
                .lines()
                .zip(fresh.lines())
                .position(|(a, b)| a != b);
            panic!(
                "{} is stale (first difference at line {}); regenerate with \
                 ASCENDCL_BLESS_BINDINGS=1 cargo test -p ascendcl-sys --test bindings_drift",
                committed_path.display(),
                first.map_or_else(|| "end".to_string(), |l| (l + 1).to_string())
            );
        }
    }
}

/// The function names a committed bindings file declares, sorted.
fn declared_in(file: &str) -> Vec<String> {
    let declarations =
        std::fs::read_to_string(crate_dir().join("src/bindings").join(file)).unwrap();
    let mut declared: Vec<String> = declarations
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .map(|rest| rest.split('(').next().unwrap().to_string())
        .collect();
    declared.sort_unstable();
    declared
}

#[test]
fn every_declared_function_is_loadable_and_every_loadable_function_is_declared() {
    let mut loadable: Vec<&str> = ascendcl_sys::FUNCTIONS.to_vec();
    loadable.sort_unstable();
    assert_eq!(declared_in("functions.rs"), loadable);
    let mut prof: Vec<&str> = ascendcl_sys::PROF_FUNCTIONS.to_vec();
    prof.sort_unstable();
    assert_eq!(declared_in("prof_functions.rs"), prof);
}

/// Splits bindgen output into top-level items keyed by what they define.
fn items(source: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut current = String::new();
    let flush = |current: &mut String, map: &mut BTreeMap<String, String>| {
        let text = std::mem::take(current);
        if let Some(key) = item_key(&text) {
            let previous = map.insert(key.clone(), text.trim().to_string());
            assert!(
                previous.is_none(),
                "two generated items share the key {key}"
            );
        }
    };
    for line in source.lines() {
        let starts_item =
            !line.starts_with(' ') && !line.starts_with('}') && !line.starts_with(')');
        if starts_item
            && !current.is_empty()
            && !current.trim_end().ends_with(']')
            && !is_attr_only(&current)
        {
            flush(&mut current, &mut map);
        }
        current.push_str(line);
        current.push('\n');
    }
    flush(&mut current, &mut map);
    map
}

fn is_attr_only(text: &str) -> bool {
    text.lines().all(|l| {
        l.starts_with("#[") || l.starts_with("    ") || l.trim().is_empty() || l.starts_with(")]")
    })
}

fn item_key(text: &str) -> Option<String> {
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("[\"Size of ") {
            return Some(format!("layout {}", rest.split('"').next()?));
        }
        if line.starts_with("impl ") {
            return Some(line.trim_end_matches('{').trim().to_string());
        }
        for prefix in [
            "pub struct ",
            "pub union ",
            "pub type ",
            "pub const ",
            "pub fn ",
        ] {
            if let Some(rest) = line.strip_prefix(prefix) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                return Some(format!("{}{name}", prefix.trim_start_matches("pub ")));
            }
        }
    }
    None
}

#[test]
#[cfg_attr(
    not(all(ascendcl_libclang, ascendcl_cann_headers)),
    ignore = "needs libclang and a CANN install with headers, not both found when ascendcl-sys was built"
)]
fn our_declarations_equal_cann_headers_item_by_item_when_cann_is_installed() {
    let Some((root, cann_include)) = cann::find_headers(&|v| std::env::var_os(v)) else {
        eprintln!("skipped: no CANN install with headers found");
        return;
    };
    let ours_include = crate_dir().join("include");
    // acl_prof.h is CANN's too (include/acl/acl_prof.h), outside acl.h
    for pass in [
        Pass::Types,
        Pass::Functions,
        Pass::ProfTypes,
        Pass::ProfFunctions,
    ] {
        let Some(ours) = generate(&ours_include, pass) else {
            return;
        };
        let Some(theirs) = generate_cann(&cann_include, pass) else {
            return;
        };
        let (ours, theirs) = (items(&ours), items(&theirs));
        let mut mismatches = Vec::new();
        for (key, text) in &ours {
            match theirs.get(key) {
                Some(t) if t == text => {}
                Some(t) => {
                    mismatches.push(format!("{key} differs:\n--- ours\n{text}--- CANN\n{t}"))
                }
                None => mismatches.push(format!("{key} is not in CANN's headers")),
            }
        }
        assert!(
            mismatches.is_empty(),
            "{} of our items differ from CANN at {}:\n{}",
            mismatches.len(),
            root.path.display(),
            mismatches.join("\n")
        );
    }
}

/// bindgen of one pass over CANN's headers, read as the `bindgen` feature
/// reads them (`bindgen_headers.rs`: CANN's aclnn and DVPP operator headers
/// through wrappers, aclnn, HCCL and DVPP as C++).
fn generate_cann(cann_include: &Path, pass: Pass) -> Option<String> {
    let scratch =
        std::env::temp_dir().join(format!("ascendcl-drift-{}-{pass:?}", std::process::id()));
    let headers = bindgen_headers::Headers::Cann(cann_include.to_path_buf());
    let result = std::panic::catch_unwind(|| {
        bindgen_headers::builder(&headers, pass, &scratch)
            .expect("write the wrapper header")
            .generate()
    });
    let _ = std::fs::remove_dir_all(&scratch);
    match result {
        Ok(Ok(bindings)) => Some(bindings.to_string()),
        Ok(Err(e)) => panic!("bindgen failed on CANN's headers for {pass:?}: {e}"),
        Err(_) => None,
    }
}

#[test]
#[cfg_attr(
    not(all(ascendcl_libclang, ascendcl_cann_headers)),
    ignore = "needs libclang and a CANN install with headers, not both found when ascendcl-sys was built"
)]
fn our_aclnn_declarations_equal_cann_operator_headers_item_by_item_when_installed() {
    let Some((root, cann_include)) = cann::find_headers(&|v| std::env::var_os(v)) else {
        eprintln!("skipped: no CANN install with headers found");
        return;
    };
    let missing: Vec<_> = bindgen_headers::CANN_ACLNN_HEADERS
        .iter()
        .filter(|h| !cann_include.join(h).exists())
        .collect();
    if !missing.is_empty() {
        eprintln!("skipped: the CANN install lacks the operator headers {missing:?}");
        return;
    }
    let ours_include = crate_dir().join("include");
    let mut mismatches = Vec::new();
    for pass in [Pass::AclnnTypes, Pass::AclnnFunctions] {
        let (Some(ours), Some(theirs)) = (
            generate(&ours_include, pass),
            generate_cann(&cann_include, pass),
        ) else {
            return;
        };
        let (ours, theirs) = (items(&ours), items(&theirs));
        for (key, text) in &ours {
            match theirs.get(key) {
                Some(t) if t == text => {}
                Some(t) => {
                    mismatches.push(format!("{key} differs:\n--- ours\n{text}--- CANN\n{t}"))
                }
                None if key.starts_with("const ACLNN_") => {
                    eprintln!("not compared (op_errno.h not installed): {key}")
                }
                None => mismatches.push(format!("{key} is not in CANN's headers")),
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of our aclnn items differ from CANN at {}:\n{}",
        mismatches.len(),
        root.path.display(),
        mismatches.join("\n")
    );
}

/// bindgen of one hccl or dvpp pass in C++ mode, over `include` (ours or CANN's).
fn generate_cxx(include: &Path, pass: Pass) -> Option<String> {
    let result = std::panic::catch_unwind(|| {
        bindgen_config::builder(include, pass)
            .clang_args(bindgen_config::CXX_ARGS)
            .generate()
    });
    match result {
        Ok(Ok(bindings)) => Some(bindings.to_string()),
        Ok(Err(e)) => panic!("bindgen (C++) failed on {}: {e}", include.display()),
        Err(_) => None,
    }
}

#[test]
fn our_hccl_header_gives_the_same_bindings_in_c_and_in_cpp() {
    // The committed bindings come from C; CANN's headers can only be read as
    // C++. Comparing across languages is meaningful only if the language
    // itself changes nothing for our header.
    let include = crate_dir().join("include");
    for pass in [Pass::HcclTypes, Pass::HcclFunctions] {
        let (Some(c), Some(cxx)) = (generate(&include, pass), generate_cxx(&include, pass)) else {
            return;
        };
        assert_eq!(c, cxx, "{pass:?} differs between C and C++");
    }
}

#[test]
fn every_declared_hccl_function_is_loadable_and_every_loadable_one_is_declared() {
    let declarations =
        std::fs::read_to_string(crate_dir().join("src/bindings/hccl_functions.rs")).unwrap();
    let mut declared: Vec<&str> = declarations
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .map(|rest| rest.split('(').next().unwrap())
        .collect();
    let mut loadable: Vec<&str> = ascendcl_sys::HCCL_FUNCTIONS.to_vec();
    declared.sort_unstable();
    loadable.sort_unstable();
    assert_eq!(declared, loadable);
}

/// Our items that CANN's headers do not define as items, each with why.
/// (Empty: every item of `include/hccl/hccl.h` has the same text in CANN.)
const HCCL_ALLOWED_DIFFERENCES: &[(&str, &str)] = &[];

#[test]
#[cfg_attr(
    not(all(ascendcl_libclang, ascendcl_cann_headers)),
    ignore = "needs libclang and a CANN install with headers, not both found when ascendcl-sys was built"
)]
fn our_hccl_declarations_equal_cann_hccl_headers_item_by_item_when_installed() {
    // The install must hold the split headers of CANN 8.5 (hicann/hccl's
    // `hccl/hccl.h`, hicann/hcomm's `hccl/hccl_types.h` and `hccl_comm.h`),
    // parsed as C++ as CANN's own builds do. `hccl_comm.h` also includes
    // `hccl_res.h` and `hccl_launch.h`, whose declarations we do not bind.
    let Some((root, cann_include)) = cann::find_headers(&|v| std::env::var_os(v)) else {
        eprintln!("skipped: no CANN install with headers found");
        return;
    };
    let needed = ["hccl/hccl.h", "hccl/hccl_types.h", "hccl/hccl_comm.h"];
    if let Some(missing) = needed.iter().find(|h| !cann_include.join(h).is_file()) {
        eprintln!("skipped: the CANN install lacks {missing}");
        return;
    }
    let ours_include = crate_dir().join("include");
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for pass in [Pass::HcclTypes, Pass::HcclFunctions] {
        let (Some(ours), Some(theirs)) = (
            generate(&ours_include, pass),
            generate_cann(&cann_include, pass),
        ) else {
            return;
        };
        let (ours, theirs) = (items(&ours), items(&theirs));
        for (key, text) in &ours {
            compared += 1;
            if let Some((_, why)) = HCCL_ALLOWED_DIFFERENCES.iter().find(|(k, _)| k == key) {
                eprintln!("not compared ({why}): {key}");
                continue;
            }
            match theirs.get(key) {
                Some(t) if t == text => {}
                Some(t) => {
                    mismatches.push(format!("{key} differs:\n--- ours\n{text}--- CANN\n{t}"))
                }
                None => mismatches.push(format!("{key} is not in CANN's headers")),
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of our {compared} hccl items differ from CANN at {}:\n{}",
        mismatches.len(),
        root.path.display(),
        mismatches.join("\n")
    );
    eprintln!(
        "{compared} hccl items equal CANN's at {}",
        root.path.display()
    );
}

#[test]
fn every_declared_dvpp_function_is_loadable_and_every_loadable_one_is_declared() {
    let mut loadable: Vec<&str> = ascendcl_sys::DVPP_FUNCTIONS.to_vec();
    loadable.sort_unstable();
    assert_eq!(declared_in("dvpp_functions.rs"), loadable);
}

#[test]
#[cfg_attr(
    not(ascendcl_libclang),
    ignore = "needs libclang, not found when ascendcl-sys was built (Debian: apt-get install libclang-dev)"
)]
fn our_dvpp_header_gives_the_same_bindings_in_c_and_in_cpp() {
    // As for hccl.h: the committed bindings come from C, CANN's acldvppop
    // headers can only be read as C++ (`#include <cstdint>`).
    let include = crate_dir().join("include");
    for pass in [Pass::DvppTypes, Pass::DvppFunctions] {
        let (Some(c), Some(cxx)) = (generate(&include, pass), generate_cxx(&include, pass)) else {
            return;
        };
        assert_eq!(c, cxx, "{pass:?} differs between C and C++");
    }
}

#[test]
#[cfg_attr(
    not(all(ascendcl_libclang, ascendcl_cann_headers)),
    ignore = "needs libclang and a CANN install with headers, not both found when ascendcl-sys was built"
)]
fn our_dvpp_declarations_equal_cann_acldvppop_headers_item_by_item_when_installed() {
    // CANN's acldvppop/acldvpp_base.h, acldvpp_init.h and the five operator
    // headers, read through a wrapper as C++ as the `bindgen` feature reads
    // them (bindgen_headers.rs). An install without the DVPP operators (a
    // runtime image, a toolkit without the operator packages) skips, saying
    // which header it lacks.
    let Some((root, cann_include)) = cann::find_headers(&|v| std::env::var_os(v)) else {
        eprintln!("skipped: no CANN install with headers found");
        return;
    };
    let needed = bindgen_headers::CANN_DVPP_HEADERS
        .iter()
        .chain(bindgen_headers::CANN_DVPP_DEPENDENCIES);
    let missing: Vec<_> = needed.filter(|h| !cann_include.join(h).is_file()).collect();
    if !missing.is_empty() {
        eprintln!(
            "skipped: the CANN install at {} lacks the DVPP operator headers {missing:?}",
            root.path.display()
        );
        return;
    }
    let ours_include = crate_dir().join("include");
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for pass in [Pass::DvppTypes, Pass::DvppFunctions] {
        let (Some(ours), Some(theirs)) = (
            generate(&ours_include, pass),
            generate_cann(&cann_include, pass),
        ) else {
            return;
        };
        let (ours, theirs) = (items(&ours), items(&theirs));
        for (key, text) in &ours {
            compared += 1;
            match theirs.get(key) {
                Some(t) if t == text => {}
                Some(t) => {
                    mismatches.push(format!("{key} differs:\n--- ours\n{text}--- CANN\n{t}"))
                }
                None => mismatches.push(format!("{key} is not in CANN's headers")),
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of our {compared} dvpp items differ from CANN at {}:\n{}",
        mismatches.len(),
        root.path.display(),
        mismatches.join("\n")
    );
    eprintln!(
        "{compared} dvpp items equal CANN's at {}",
        root.path.display()
    );
}
