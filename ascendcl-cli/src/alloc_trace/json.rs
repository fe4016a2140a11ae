//! JSON lines I/O of traces, written by hand (the parser is in `parse`).

use std::fmt;
use std::io::{self, BufRead, BufWriter, Write};

use super::parse::{Fields, Parser};
use super::{OpKind, Trace};

/// Why a trace could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum TraceError {
    /// Reading the line failed.
    Io { line: usize, source: io::Error },
    /// Not JSON of the expected shape; `column` is a 1-based byte offset.
    Syntax {
        line: usize,
        column: usize,
        expected: &'static str,
    },
    /// The first line is not the metadata header (or the input is empty).
    MissingHeader { line: usize },
    /// A required field is absent.
    MissingField { line: usize, field: &'static str },
    /// A field this format does not have.
    UnknownField { line: usize, field: String },
    /// A field given twice.
    DuplicateField { line: usize, field: String },
    /// A field with a value of the wrong JSON type.
    WrongType {
        line: usize,
        field: &'static str,
        expected: &'static str,
    },
    /// A number too large for its field (`step`, `stream` and `batches` are
    /// 32-bit).
    OutOfRange {
        line: usize,
        field: &'static str,
        value: u64,
    },
    /// A string that is not one of the field's names (e.g. `"op":"realloc"`).
    UnknownValue {
        line: usize,
        field: &'static str,
        value: String,
    },
}

impl TraceError {
    /// The 1-based line the error is on.
    pub fn line(&self) -> usize {
        match *self {
            TraceError::Io { line, .. }
            | TraceError::Syntax { line, .. }
            | TraceError::MissingHeader { line }
            | TraceError::MissingField { line, .. }
            | TraceError::UnknownField { line, .. }
            | TraceError::DuplicateField { line, .. }
            | TraceError::WrongType { line, .. }
            | TraceError::OutOfRange { line, .. }
            | TraceError::UnknownValue { line, .. } => line,
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.line();
        match self {
            TraceError::Io { source, .. } => write!(f, "line {line}: read failed: {source}"),
            TraceError::Syntax {
                column, expected, ..
            } => {
                write!(f, "line {line}, column {column}: expected {expected}")
            }
            TraceError::MissingHeader { .. } => write!(f, "line {line}: expected the trace header"),
            TraceError::MissingField { field, .. } => {
                write!(f, "line {line}: missing field `{field}`")
            }
            TraceError::UnknownField { field, .. } => {
                write!(f, "line {line}: unknown field `{field}`")
            }
            TraceError::DuplicateField { field, .. } => {
                write!(f, "line {line}: field `{field}` given twice")
            }
            TraceError::WrongType {
                field, expected, ..
            } => {
                write!(f, "line {line}: field `{field}` must be {expected}")
            }
            TraceError::OutOfRange { field, value, .. } => {
                write!(f, "line {line}: {value} is out of range for `{field}`")
            }
            TraceError::UnknownValue { field, value, .. } => {
                write!(f, "line {line}: {value:?} is not a valid `{field}`")
            }
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Trace {
    /// Writes the header line with the metadata, then one line per op:
    ///
    /// ```text
    /// {"model":"resnet50","dtype":"fp32","optimizer":"sgd_momentum","grads":"keep","batches":[64,65],"persistent":[0,1]}
    /// {"step":0,"op":"alloc","id":17,"bytes":12845056,"stream":0}
    /// {"step":0,"op":"free","id":17,"bytes":12845056,"stream":0}
    /// ```
    pub fn to_json_lines(&self, w: impl Write) -> io::Result<()> {
        let mut w = BufWriter::new(w);
        let m = &self.meta;
        write!(w, "{{\"model\":")?;
        write_string(&mut w, &m.model)?;
        write!(
            w,
            ",\"dtype\":\"{}\",\"optimizer\":\"{}\",\"grads\":\"{}\",\"batches\":",
            m.dtype.as_str(),
            m.optimizer.as_str(),
            m.grads.as_str()
        )?;
        write_list(&mut w, m.batches.iter().map(|&b| u64::from(b)))?;
        write!(w, ",\"persistent\":")?;
        write_list(&mut w, m.persistent.iter().copied())?;
        writeln!(w, "}}")?;
        for op in &self.ops {
            let kind = match op.kind {
                OpKind::Alloc => "alloc",
                OpKind::Free => "free",
            };
            writeln!(
                w,
                "{{\"step\":{},\"op\":\"{kind}\",\"id\":{},\"bytes\":{},\"stream\":{}}}",
                op.step, op.id, op.bytes, op.stream
            )?;
        }
        w.flush()
    }

    /// Reads what [`Trace::to_json_lines`] writes. Fields may come in any
    /// order, with whitespace between tokens, and blank lines are skipped;
    /// anything else (other fields or value types, numbers out of range,
    /// unknown names, invalid UTF-8, a missing header) is a [`TraceError`]
    /// naming its 1-based line. It checks the syntax, not the lifetimes:
    /// see [`Trace::check`].
    pub fn from_json_lines(mut r: impl BufRead) -> Result<Trace, TraceError> {
        let mut buf = Vec::new();
        let mut meta = None;
        let mut ops = Vec::new();
        let mut line = 0;
        loop {
            buf.clear();
            line += 1;
            match r.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(source) => return Err(TraceError::Io { line, source }),
            }
            let Ok(text) = std::str::from_utf8(&buf) else {
                return Err(TraceError::Syntax {
                    line,
                    column: 1,
                    expected: "UTF-8 text",
                });
            };
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            let fields = Fields::new(line, Parser::new(text, line).object()?);
            if meta.is_none() {
                if fields.has("op") && !fields.has("model") {
                    return Err(TraceError::MissingHeader { line });
                }
                meta = Some(fields.header()?);
            } else {
                ops.push(fields.op()?);
            }
        }
        let meta = meta.ok_or(TraceError::MissingHeader { line: 1 })?;
        Ok(Trace { ops, meta })
    }
}

fn write_string(w: &mut impl Write, s: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    for c in s.chars() {
        match c {
            '"' => w.write_all(b"\\\"")?,
            '\\' => w.write_all(b"\\\\")?,
            c if u32::from(c) < 0x20 => write!(w, "\\u{:04x}", u32::from(c))?,
            c => write!(w, "{c}")?,
        }
    }
    w.write_all(b"\"")
}

fn write_list(w: &mut impl Write, items: impl Iterator<Item = u64>) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        write!(w, "{item}")?;
    }
    w.write_all(b"]")
}
