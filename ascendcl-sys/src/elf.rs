//! Checking a library file before the dynamic loader maps it.
//!
//! `dlopen` maps each loadable segment of an ELF file at the offset and size
//! its program header gives. When the file is shorter than that (an
//! interrupted copy or download), the mapping extends past the end of the
//! file, and the first touch of those pages kills the process with `SIGBUS`
//! inside `dlopen`, where no error can be returned. So every file this crate
//! opens by path is checked first: an ELF header of this process's class
//! (32/64-bit), byte order and machine, a shared object, and every program
//! header's bytes (`p_offset + p_filesz`) inside the file. A failed check is
//! an [`ElfProblem`], which the loader reports with the file's name.
//!
//! The layout read here is the System V ABI's ELF format (`elf(5)`): the
//! 16 identification bytes, then `e_type`, `e_machine`, `e_phoff`,
//! `e_phentsize`, `e_phnum` at the offsets of the 32- or 64-bit header.

use std::fmt;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Why a file is not a shared library this process can load.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElfProblem {
    /// The file could not be opened or read.
    Unreadable {
        /// The system's message.
        error: String,
    },
    /// The file is empty.
    Empty,
    /// The file does not start with the ELF magic number (`\x7fELF`).
    NotElf,
    /// The file ends inside the ELF header.
    TruncatedHeader {
        /// The size of the header.
        header_bytes: u64,
        /// The size of the file.
        file_bytes: u64,
    },
    /// A 32-bit file in a 64-bit process, or the reverse.
    WrongClass {
        /// Bits of the file (32 or 64; 0 when its class byte is invalid).
        file_bits: u32,
        /// Bits of this process.
        process_bits: u32,
    },
    /// The file's byte order is not this machine's.
    WrongByteOrder {
        /// `little-endian`, `big-endian` or `invalid`.
        file: &'static str,
        /// This machine's.
        machine: &'static str,
    },
    /// The file was built for another processor.
    WrongMachine {
        /// The file's `e_machine`.
        file: u16,
        /// This machine's `e_machine`.
        machine: u16,
    },
    /// The file is an ELF file, but not a shared object (`ET_DYN`).
    NotSharedObject {
        /// The file's `e_type` (1: relocatable object, 2: executable, 4: core dump).
        elf_type: u16,
    },
    /// The program headers are not the size this class of ELF file has.
    BadProgramHeaderSize {
        /// `e_phentsize`.
        entry_bytes: u16,
        /// The size for this class (56 bytes for 64-bit files, 32 for 32-bit).
        expected: u16,
    },
    /// The program header table reaches past the end of the file.
    ProgramHeadersOutside {
        /// The byte the table ends at.
        end: u64,
        /// The size of the file.
        file_bytes: u64,
    },
    /// A segment's bytes reach past the end of the file: the file is
    /// truncated (the dynamic loader would crash mapping it).
    SegmentOutside {
        /// The segment's index in the program header table (from 0, as
        /// `readelf -l` lists them).
        index: usize,
        /// `p_offset + p_filesz`.
        end: u64,
        /// The size of the file.
        file_bytes: u64,
    },
}

impl ElfProblem {
    /// What to do about it, in a few words.
    pub fn fix(&self) -> &'static str {
        match self {
            ElfProblem::Unreadable { .. } => "check the file's permissions",
            ElfProblem::WrongClass { .. }
            | ElfProblem::WrongByteOrder { .. }
            | ElfProblem::WrongMachine { .. } => {
                "install the CANN package built for this machine's architecture"
            }
            ElfProblem::NotSharedObject { .. } => "point at the shared library (a `.so` file)",
            ElfProblem::NotElf => {
                "point at the ELF shared library itself (not a linker script or an archive), \
                 or copy or install it again"
            }
            _ => {
                "copy or install the file again (an interrupted copy or download leaves it \
                 truncated)"
            }
        }
    }
}

/// The name of an `e_machine` value, for the common ones.
fn machine_name(machine: u16) -> String {
    let name = match machine {
        3 => "x86",
        8 => "mips",
        20 => "powerpc",
        21 => "powerpc64",
        22 => "s390x",
        40 => "arm",
        43 => "sparc64",
        62 => "x86_64",
        183 => "aarch64",
        243 => "riscv",
        258 => "loongarch",
        _ => return format!("ELF machine {machine}"),
    };
    format!("{name} (ELF machine {machine})")
}

impl fmt::Display for ElfProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElfProblem::Unreadable { error } => write!(f, "cannot be read: {error}"),
            ElfProblem::Empty => write!(f, "empty: the file has 0 bytes"),
            ElfProblem::NotElf => write!(f, "not an ELF file (it does not start with \\x7fELF)"),
            ElfProblem::TruncatedHeader {
                header_bytes,
                file_bytes,
            } => write!(
                f,
                "truncated: the ELF header needs {header_bytes} bytes, the file has {file_bytes}"
            ),
            ElfProblem::WrongClass {
                file_bits,
                process_bits,
            } => match file_bits {
                0 => write!(
                    f,
                    "an ELF file of invalid class; this process is {process_bits}-bit"
                ),
                _ => write!(
                    f,
                    "a {file_bits}-bit library; this process is {process_bits}-bit"
                ),
            },
            ElfProblem::WrongByteOrder { file, machine } => {
                write!(f, "a {file} library; this machine is {machine}")
            }
            ElfProblem::WrongMachine { file, machine } => write!(
                f,
                "built for {}; this machine is {}",
                machine_name(*file),
                machine_name(*machine)
            ),
            ElfProblem::NotSharedObject { elf_type } => {
                let what = match elf_type {
                    1 => "a relocatable object (.o)",
                    2 => "an executable",
                    4 => "a core dump",
                    _ => "an ELF file of unknown type",
                };
                write!(f, "{what} (ELF type {elf_type}), not a shared library")
            }
            ElfProblem::BadProgramHeaderSize {
                entry_bytes,
                expected,
            } => write!(
                f,
                "damaged: program headers of {entry_bytes} bytes (this class of ELF file has {expected})"
            ),
            ElfProblem::ProgramHeadersOutside { end, file_bytes } => write!(
                f,
                "truncated: the program header table ends at byte {end}, the file has {file_bytes}"
            ),
            ElfProblem::SegmentOutside {
                index,
                end,
                file_bytes,
            } => write!(
                f,
                "truncated: segment {index} ends at byte {end}, the file has {file_bytes}"
            ),
        }
    }
}

impl std::error::Error for ElfProblem {}

/// `EI_CLASS` of this process: 1 (32-bit) or 2 (64-bit).
const PROCESS_CLASS: u8 = if cfg!(target_pointer_width = "64") {
    2
} else {
    1
};

/// `EI_DATA` of this machine: 1 (little-endian) or 2 (big-endian).
const MACHINE_DATA: u8 = if cfg!(target_endian = "little") { 1 } else { 2 };

/// `e_machine` of this machine, for the architectures with a known value.
const MACHINE: Option<u16> = if cfg!(target_arch = "x86_64") {
    Some(62)
} else if cfg!(target_arch = "aarch64") {
    Some(183)
} else if cfg!(target_arch = "x86") {
    Some(3)
} else if cfg!(target_arch = "arm") {
    Some(40)
} else if cfg!(any(target_arch = "riscv64", target_arch = "riscv32")) {
    Some(243)
} else if cfg!(target_arch = "powerpc64") {
    Some(21)
} else if cfg!(target_arch = "s390x") {
    Some(22)
} else if cfg!(target_arch = "loongarch64") {
    Some(258)
} else {
    None
};

/// `e_type` of a shared object.
const ET_DYN: u16 = 3;

/// `e_phnum` meaning "more than fits here: see `sh_info` of section 0".
const PN_XNUM: u16 = 0xffff;

fn byte_order(data: u8) -> &'static str {
    match data {
        1 => "little-endian",
        2 => "big-endian",
        _ => "invalid",
    }
}

/// Reads integers of this machine's byte order (the file's, once checked).
struct Reader<'a> {
    file: &'a File,
    len: u64,
}

impl Reader<'_> {
    fn bytes<const N: usize>(&self, offset: u64) -> Result<[u8; N], ElfProblem> {
        let mut buf = [0u8; N];
        self.file
            .read_exact_at(&mut buf, offset)
            .map_err(|e| ElfProblem::Unreadable {
                error: e.to_string(),
            })?;
        Ok(buf)
    }

    fn u16(&self, offset: u64) -> Result<u16, ElfProblem> {
        self.bytes(offset).map(u16::from_ne_bytes)
    }

    fn u32(&self, offset: u64) -> Result<u32, ElfProblem> {
        self.bytes(offset).map(u32::from_ne_bytes)
    }

    /// A 32-bit word of 32-bit files, a 64-bit word of 64-bit files.
    fn word(&self, offset: u64, wide: bool) -> Result<u64, ElfProblem> {
        if wide {
            self.bytes(offset).map(u64::from_ne_bytes)
        } else {
            self.u32(offset).map(u64::from)
        }
    }
}

/// Checks that `path` is a shared library this process can map: see the
/// module docs. Reads the ELF header and the program header table only.
pub fn check_shared_object(path: &Path) -> Result<(), ElfProblem> {
    let unreadable = |e: std::io::Error| ElfProblem::Unreadable {
        error: e.to_string(),
    };
    let file = File::open(path).map_err(unreadable)?;
    let len = file.metadata().map_err(unreadable)?.len();
    let r = Reader { file: &file, len };
    if r.len == 0 {
        return Err(ElfProblem::Empty);
    }
    if r.len < 4 || r.bytes::<4>(0)? != *b"\x7fELF" {
        return Err(ElfProblem::NotElf);
    }
    if r.len < 16 {
        return Err(ElfProblem::TruncatedHeader {
            header_bytes: 16,
            file_bytes: r.len,
        });
    }
    let ident: [u8; 16] = r.bytes(0)?;
    let (class, data) = (ident[4], ident[5]);
    if class != PROCESS_CLASS {
        return Err(ElfProblem::WrongClass {
            file_bits: match class {
                1 => 32,
                2 => 64,
                _ => 0,
            },
            process_bits: if PROCESS_CLASS == 2 { 64 } else { 32 },
        });
    }
    if data != MACHINE_DATA {
        return Err(ElfProblem::WrongByteOrder {
            file: byte_order(data),
            machine: byte_order(MACHINE_DATA),
        });
    }
    let wide = class == 2;
    // Offsets of the 64-bit header (elf(5): Elf64_Ehdr) or the 32-bit one.
    let (header_bytes, phoff_at, phentsize_at, phnum_at, shoff_at, phent_bytes) = if wide {
        (64u64, 32, 54, 56, 40, 56u16)
    } else {
        (52u64, 28, 42, 44, 32, 32u16)
    };
    if r.len < header_bytes {
        return Err(ElfProblem::TruncatedHeader {
            header_bytes,
            file_bytes: r.len,
        });
    }
    let elf_type = r.u16(16)?;
    if elf_type != ET_DYN {
        return Err(ElfProblem::NotSharedObject { elf_type });
    }
    let machine = r.u16(18)?;
    if let Some(expected) = MACHINE.filter(|&m| m != machine) {
        return Err(ElfProblem::WrongMachine {
            file: machine,
            machine: expected,
        });
    }
    let phoff = r.word(phoff_at, wide)?;
    let phentsize = r.u16(phentsize_at)?;
    let mut phnum = u64::from(r.u16(phnum_at)?);
    if phnum == 0 {
        return Ok(());
    }
    if phentsize != phent_bytes {
        return Err(ElfProblem::BadProgramHeaderSize {
            entry_bytes: phentsize,
            expected: phent_bytes,
        });
    }
    if phnum == u64::from(PN_XNUM) {
        // The count is `sh_info` of section header 0 (elf(5), e_phnum).
        let shoff = r.word(shoff_at, wide)?;
        let sh_info_at = shoff.saturating_add(if wide { 44 } else { 28 });
        if sh_info_at.saturating_add(4) > r.len {
            return Err(ElfProblem::ProgramHeadersOutside {
                end: sh_info_at.saturating_add(4),
                file_bytes: r.len,
            });
        }
        phnum = u64::from(r.u32(sh_info_at)?);
    }
    let table_end = phoff.saturating_add(phnum.saturating_mul(u64::from(phentsize)));
    if table_end > r.len {
        return Err(ElfProblem::ProgramHeadersOutside {
            end: table_end,
            file_bytes: r.len,
        });
    }
    // Offsets inside Elf64_Phdr / Elf32_Phdr of p_offset and p_filesz.
    let (offset_at, filesz_at) = if wide { (8, 32) } else { (4, 16) };
    for index in 0..phnum {
        let entry = phoff + index * u64::from(phentsize);
        let offset = r.word(entry + offset_at, wide)?;
        let filesz = r.word(entry + filesz_at, wide)?;
        let end = offset.saturating_add(filesz);
        if end > r.len {
            return Err(ElfProblem::SegmentOutside {
                index: index as usize,
                end,
                file_bytes: r.len,
            });
        }
    }
    Ok(())
}
