//! A library file that is damaged (truncated, empty, not ELF) or built for
//! another machine is refused with a typed error naming the file and what is
//! wrong, before the dynamic loader maps it: `dlopen` of a truncated file
//! kills the process with SIGBUS. The damaged files are copies of the mock's
//! libraries, cut or patched here.
//!
//! The patches assume a 64-bit process (the ELF field offsets of 64-bit files).
#![cfg(target_pointer_width = "64")]

use std::path::{Path, PathBuf};
use std::process::Command;

use ascendcl_sys::aclnn::{Aclnn, NNOPBASE};
use ascendcl_sys::dvpp::{DVPP_LIBRARY, Dvpp};
use ascendcl_sys::elf::check_shared_object;
use ascendcl_sys::hccl::{HCCL_LIBRARY, HCOMM_LIBRARY, Hccl};
use ascendcl_sys::prof::Profiler;
use ascendcl_sys::{ElfProblem, LIBRARY_ENV_VAR, Library, LoadError, library};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ascendcl-damaged-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the first `len` bytes of `from` to `to`.
fn truncated_copy(from: &str, to: &Path, len: usize) {
    let bytes = std::fs::read(from).unwrap();
    assert!(len < bytes.len());
    std::fs::write(to, &bytes[..len]).unwrap();
}

/// Writes `from` to `to` with `patch` written at `offset`.
fn patched_copy(from: &str, to: &Path, offset: usize, patch: &[u8]) {
    let mut bytes = std::fs::read(from).unwrap();
    bytes[offset..offset + patch.len()].copy_from_slice(patch);
    std::fs::write(to, bytes).unwrap();
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes(bytes[at..at + 2].try_into().unwrap())
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// `(p_offset, p_filesz)` of every program header of a 64-bit ELF file,
/// read here independently of the crate's check.
fn segments(bytes: &[u8]) -> Vec<(u64, u64)> {
    let phoff = u64_at(bytes, 32) as usize;
    let phnum = u16_at(bytes, 56) as usize;
    (0..phnum)
        .map(|i| {
            let entry = phoff + i * 56;
            (u64_at(bytes, entry + 8), u64_at(bytes, entry + 32))
        })
        .collect()
}

/// A length that cuts `path` in the middle of its loaded bytes: a plain
/// `dlopen` of this file dies of SIGBUS. (Half the file would not do: the
/// mock's debug information, which is never mapped, is most of it.)
fn mid_segment_cut(path: &str) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let loaded_end = segments(&bytes)
        .into_iter()
        .map(|(offset, filesz)| offset + filesz)
        .max()
        .unwrap();
    (loaded_end / 2) as usize
}

#[test]
fn every_library_of_the_mock_passes_the_check() {
    for path in [
        ascendcl_mock::LIBRARY_PATH,
        ascendcl_mock::NNOPBASE_PATH,
        ascendcl_mock::OPAPI_PATH,
        ascendcl_mock::HCCL_PATH,
        ascendcl_mock::HCOMM_PATH,
        ascendcl_mock::PROFILER_PATH,
    ] {
        assert_eq!(check_shared_object(Path::new(path)), Ok(()), "{path}");
    }
}

#[test]
fn a_truncated_copy_of_the_mock_is_refused_naming_the_first_segment_past_the_end() {
    let dir = temp_dir("half");
    let file = dir.join("libascendcl.so");
    let whole = std::fs::read(ascendcl_mock::LIBRARY_PATH).unwrap();
    let cut = mid_segment_cut(ascendcl_mock::LIBRARY_PATH);
    truncated_copy(ascendcl_mock::LIBRARY_PATH, &file, cut);
    let (index, (offset, filesz)) = segments(&whole)
        .into_iter()
        .enumerate()
        .find(|(_, (offset, filesz))| offset + filesz > cut as u64)
        .expect("a segment of the mock ends past the cut");

    let err = Library::open(&file).unwrap_err();
    let LoadError::InvalidFile {
        file: named,
        source,
        problem,
    } = &err
    else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(named, &file);
    assert_eq!(source, "explicit path");
    assert_eq!(
        problem,
        &ElfProblem::SegmentOutside {
            index,
            end: offset + filesz,
            file_bytes: cut as u64,
        }
    );
    let text = err.to_string();
    let expected = format!(
        "{} (from explicit path) is not a usable shared library: truncated: segment {index} ends at byte {}, the file has {cut}",
        file.display(),
        offset + filesz
    );
    assert!(text.starts_with(&expected), "{text}");
    assert!(text.contains("Copy or install the file again"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_file_is_refused_as_empty() {
    let dir = temp_dir("empty");
    let file = dir.join("libascendcl.so");
    std::fs::write(&file, b"").unwrap();
    assert_eq!(check_shared_object(&file), Err(ElfProblem::Empty));
    let err = Library::open(&file).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::InvalidFile {
                problem: ElfProblem::Empty,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("the file has 0 bytes"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_that_is_not_elf_is_refused_before_the_dynamic_loader_sees_it() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let err = Library::open(&manifest).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::InvalidFile {
                problem: ElfProblem::NotElf,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("not an ELF file"), "{err}");
}

#[test]
fn a_file_cut_inside_the_elf_header_is_refused_as_truncated() {
    let dir = temp_dir("header");
    for (cut, header_bytes) in [(10, 16), (40, 64)] {
        let file = dir.join(format!("cut{cut}.so"));
        truncated_copy(ascendcl_mock::LIBRARY_PATH, &file, cut);
        assert_eq!(
            check_shared_object(&file),
            Err(ElfProblem::TruncatedHeader {
                header_bytes,
                file_bytes: cut as u64
            })
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_cut_inside_the_program_header_table_is_refused_as_truncated() {
    let whole = std::fs::read(ascendcl_mock::LIBRARY_PATH).unwrap();
    let (phoff, phnum) = (u64_at(&whole, 32), u64::from(u16_at(&whole, 56)));
    let dir = temp_dir("phdrs");
    let file = dir.join("libascendcl.so");
    let cut = phoff + 56 * phnum - 1;
    truncated_copy(ascendcl_mock::LIBRARY_PATH, &file, cut as usize);
    assert_eq!(
        check_shared_object(&file),
        Err(ElfProblem::ProgramHeadersOutside {
            end: phoff + 56 * phnum,
            file_bytes: cut
        })
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_library_for_another_machine_is_refused_naming_both_machines() {
    let whole = std::fs::read(ascendcl_mock::LIBRARY_PATH).unwrap();
    let ours = u16_at(&whole, 18);
    // x86_64 (62) and aarch64 (183), whichever this machine is not.
    let other: u16 = if ours == 62 { 183 } else { 62 };
    let dir = temp_dir("machine");
    let file = dir.join("libascendcl.so");
    patched_copy(ascendcl_mock::LIBRARY_PATH, &file, 18, &other.to_ne_bytes());
    let problem = check_shared_object(&file).unwrap_err();
    assert_eq!(
        problem,
        ElfProblem::WrongMachine {
            file: other,
            machine: ours
        }
    );
    let text = problem.to_string();
    assert!(
        text.contains("aarch64 (ELF machine 183)") && text.contains("x86_64 (ELF machine 62)"),
        "{text}"
    );
    assert!(problem.fix().contains("architecture"), "{}", problem.fix());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_32_bit_library_and_the_other_byte_order_are_refused() {
    let dir = temp_dir("ident");
    let file = dir.join("class.so");
    patched_copy(ascendcl_mock::LIBRARY_PATH, &file, 4, &[1]);
    assert_eq!(
        check_shared_object(&file),
        Err(ElfProblem::WrongClass {
            file_bits: 32,
            process_bits: 64
        })
    );
    let ours = std::fs::read(ascendcl_mock::LIBRARY_PATH).unwrap()[5];
    let file = dir.join("order.so");
    patched_copy(ascendcl_mock::LIBRARY_PATH, &file, 5, &[3 - ours]);
    let problem = check_shared_object(&file).unwrap_err();
    assert!(
        matches!(problem, ElfProblem::WrongByteOrder { .. }),
        "{problem:?}"
    );
    assert!(problem.to_string().contains("big-endian"), "{problem}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_executable_is_refused_as_not_a_shared_library() {
    let dir = temp_dir("exec");
    let file = dir.join("libascendcl.so");
    patched_copy(ascendcl_mock::LIBRARY_PATH, &file, 16, &2u16.to_ne_bytes());
    assert_eq!(
        check_shared_object(&file),
        Err(ElfProblem::NotSharedObject { elf_type: 2 })
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn extended_program_header_numbering_is_read_from_section_zero() {
    // e_phnum = PN_XNUM: the count is sh_info of section header 0.
    let mut bytes = std::fs::read(ascendcl_mock::LIBRARY_PATH).unwrap();
    let phnum = u16_at(&bytes, 56);
    let sh_info = u64_at(&bytes, 40) as usize + 44;
    bytes[56..58].copy_from_slice(&0xffffu16.to_ne_bytes());
    bytes[sh_info..sh_info + 4].copy_from_slice(&u32::from(phnum).to_ne_bytes());
    let dir = temp_dir("xnum");
    let file = dir.join("good.so");
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(check_shared_object(&file), Ok(()));
    // A count from section 0 that runs past the file is caught too.
    bytes[sh_info..sh_info + 4].copy_from_slice(&u32::MAX.to_ne_bytes());
    let file = dir.join("bad.so");
    std::fs::write(&file, &bytes).unwrap();
    assert!(
        matches!(
            check_shared_object(&file),
            Err(ElfProblem::ProgramHeadersOutside { .. })
        ),
        "{:?}",
        check_shared_object(&file)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_libhcomm_beside_libhccl_is_reported_before_libhccl_is_opened() {
    // The mock's libhccl.so needs libhcomm.so ($ORIGIN): opening it would
    // map the truncated libhcomm.so, so that one is checked first.
    let dir = temp_dir("hcomm");
    std::fs::copy(ascendcl_mock::HCCL_PATH, dir.join(HCCL_LIBRARY)).unwrap();
    let cut = mid_segment_cut(ascendcl_mock::HCOMM_PATH);
    truncated_copy(ascendcl_mock::HCOMM_PATH, &dir.join(HCOMM_LIBRARY), cut);
    let err = Hccl::open_dir(&dir).unwrap_err();
    let LoadError::HcclNotFound { attempts } = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    assert_eq!(attempts[0].candidate, dir.join(HCOMM_LIBRARY));
    assert!(
        attempts[0]
            .reason
            .starts_with("not a usable shared library: truncated: segment "),
        "{}",
        attempts[0].reason
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_libnnopbase_is_listed_among_the_aclnn_attempts() {
    let dir = temp_dir("nnopbase");
    let cut = mid_segment_cut(ascendcl_mock::NNOPBASE_PATH);
    truncated_copy(ascendcl_mock::NNOPBASE_PATH, &dir.join(NNOPBASE), cut);
    let err = Aclnn::open_dir(&dir).unwrap_err();
    let LoadError::AclnnNotFound { attempts } = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(attempts[0].candidate, dir.join(NNOPBASE));
    assert!(attempts[0].reason.contains("truncated: segment"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_profiler_library_is_an_invalid_file_error() {
    let dir = temp_dir("prof");
    let file = dir.join("libmsprofiler.so");
    let cut = mid_segment_cut(ascendcl_mock::PROFILER_PATH);
    truncated_copy(ascendcl_mock::PROFILER_PATH, &file, cut);
    let err = Profiler::open(&file).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::InvalidFile { file: named, problem: ElfProblem::SegmentOutside { .. }, .. }
                if *named == file
        ),
        "{err:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_dvpp_library_is_an_invalid_file_error() {
    // Any of the mock's libraries cut in a segment: the check runs before
    // the dynamic loader, whatever the file exports.
    let dir = temp_dir("dvpp");
    let file = dir.join(DVPP_LIBRARY);
    let cut = mid_segment_cut(ascendcl_mock::PROFILER_PATH);
    truncated_copy(ascendcl_mock::PROFILER_PATH, &file, cut);
    let err = Dvpp::open(&file).unwrap_err();
    assert!(
        matches!(
            &err,
            LoadError::InvalidFile { file: named, problem: ElfProblem::SegmentOutside { .. }, .. }
                if *named == file
        ),
        "{err:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs this test binary again with `env`, running only
/// `child_reports_what_discovery_returns`; returns its output. A child killed
/// by a signal (SIGBUS in dlopen) fails the calling test.
fn discovery_in_child(env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "child_reports_what_discovery_returns",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("ASCENDCL_SYS_DAMAGED_CHILD", "1")
    .env_remove(LIBRARY_ENV_VAR);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "child failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn child_reports_what_discovery_returns() {
    if std::env::var_os("ASCENDCL_SYS_DAMAGED_CHILD").is_none() {
        return;
    }
    match library() {
        Ok(lib) => println!("LOADED {}", lib.path().display()),
        Err(e @ LoadError::InvalidFile { .. }) => println!("INVALID {e}"),
        Err(e) => println!("ERROR {e}"),
    }
}

#[test]
fn ascendcl_library_naming_a_truncated_file_is_an_invalid_file_error_naming_the_variable() {
    let dir = temp_dir("env");
    let file = dir.join("libascendcl.so");
    let cut = mid_segment_cut(ascendcl_mock::LIBRARY_PATH);
    truncated_copy(ascendcl_mock::LIBRARY_PATH, &file, cut);
    let out = discovery_in_child(&[(LIBRARY_ENV_VAR, file.to_str().unwrap())]);
    let expected = format!(
        "INVALID {} (from ASCENDCL_LIBRARY) is not a usable shared library: truncated: segment ",
        file.display()
    );
    assert!(out.contains(&expected), "{out}");
    assert!(
        out.contains("or set ASCENDCL_LIBRARY to another file"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_library_in_a_cann_root_is_listed_and_the_search_goes_on() {
    let root = temp_dir("root");
    let lib64 = root.join("lib64");
    std::fs::create_dir_all(&lib64).unwrap();
    let cut = mid_segment_cut(ascendcl_mock::LIBRARY_PATH);
    truncated_copy(
        ascendcl_mock::LIBRARY_PATH,
        &lib64.join("libascendcl.so"),
        cut,
    );
    let env = [
        ("ASCEND_TOOLKIT_HOME", root.to_str().unwrap()),
        ("ASCEND_HOME_PATH", ""),
        ("ASCEND_INSTALL_PATH", ""),
        ("HOME", "/nonexistent-home"),
        ("LD_LIBRARY_PATH", ""),
    ];
    // Alone, it is one of the places tried, with what is wrong with it.
    let out = discovery_in_child(&env);
    let listed = format!(
        "{} (from ASCEND_TOOLKIT_HOME = {}): not a usable shared library: truncated: segment ",
        lib64.join("libascendcl.so").display(),
        root.display()
    );
    assert!(
        out.contains("ERROR could not load") && out.contains(&listed),
        "{out}"
    );
    // The next candidate of the same root is then used.
    std::fs::copy(ascendcl_mock::LIBRARY_PATH, lib64.join("libacl_rt.so")).unwrap();
    let out = discovery_in_child(&env);
    assert!(
        out.contains(&format!("LOADED {}", lib64.join("libacl_rt.so").display())),
        "{out}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}
