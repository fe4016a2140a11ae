//! The `.npy` header: a Python dict literal such as
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
//!
//! A small tokenizer-free recursive parser for exactly what `numpy.save`
//! writes: string keys; string, `True`/`False` and integer-tuple values
//! (Python 2's `3L` longs included). A list `descr` (a structured dtype) is
//! recognized so that it can be reported as an unsupported dtype.

use super::decode::ByteOrder;
use super::dtype::DType;

/// The parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) descr: Descr,
    pub(crate) fortran_order: bool,
    pub(crate) shape: Vec<usize>,
}

/// The `descr` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Descr {
    /// A supported simple type.
    Simple(DType, ByteOrder),
    /// Anything else (complex, strings, structured, ...), as written.
    Unsupported(String),
}

/// A header value.
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
    List,
}

/// Parses the header text. The error is a reason, for
/// [`TensorFileError::BadNpyHeader`](super::TensorFileError::BadNpyHeader).
pub(crate) fn parse_header(text: &str) -> Result<Header, String> {
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
    };
    let mut descr = None;
    let mut fortran_order = None;
    let mut shape = None;

    p.expect('{')?;
    loop {
        p.skip_ws();
        if p.eat('}') {
            break;
        }
        let key = p.string()?;
        p.expect(':')?;
        let value = p.value()?;
        match (key.as_str(), value) {
            ("descr", Value::Str(s)) => descr = Some(parse_descr(&s)),
            ("descr", Value::List) => {
                descr = Some(Descr::Unsupported("structured (record) dtype".to_owned()))
            }
            ("fortran_order", Value::Bool(b)) => fortran_order = Some(b),
            ("shape", Value::Tuple(t)) => shape = Some(t),
            ("descr" | "fortran_order" | "shape", _) => {
                return Err(format!("the value of '{key}' has the wrong type"));
            }
            _ => return Err(format!("unexpected key '{key}'")),
        }
        p.skip_ws();
        if p.eat('}') {
            break;
        }
        p.expect(',')?;
    }
    p.skip_ws();
    if p.pos < p.chars.len() {
        return Err("unexpected text after the header dict".to_owned());
    }
    Ok(Header {
        descr: descr.ok_or("the header has no 'descr'")?,
        fortran_order: fortran_order.ok_or("the header has no 'fortran_order'")?,
        shape: shape.ok_or("the header has no 'shape'")?,
    })
}

/// Maps a NumPy type string (`'<f4'`, `'|b1'`, ...) to a dtype and byte order.
/// `'|'` (not applicable) and `'='` (native) both mean this machine's order.
pub(crate) fn parse_descr(descr: &str) -> Descr {
    let (order, code) = match descr.chars().next() {
        Some('<') => (ByteOrder::Little, descr.get(1..)),
        Some('>') => (ByteOrder::Big, descr.get(1..)),
        Some('|' | '=') => (ByteOrder::NATIVE, descr.get(1..)),
        _ => (ByteOrder::NATIVE, Some(descr)),
    };
    let dtype = match code.unwrap_or("") {
        "b1" => DType::Bool,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        _ => return Descr::Unsupported(descr.to_owned()),
    };
    Descr::Simple(dtype, order)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        self.skip_ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(match self.peek() {
                Some(found) => format!("expected '{c}' at character {}, found '{found}'", self.pos),
                None => format!("expected '{c}' at character {}, found the end", self.pos),
            })
        }
    }

    /// A quoted string (single or double quotes, backslash escapes kept simple).
    fn string(&mut self) -> Result<String, String> {
        self.skip_ws();
        let quote = match self.peek() {
            Some(q @ ('\'' | '"')) => q,
            _ => {
                return Err(format!(
                    "expected a quoted string at character {}",
                    self.pos
                ));
            }
        };
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err("unterminated string".to_owned()),
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c) => out.push(c),
                        None => return Err("unterminated string".to_owned()),
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_ws();
        match self.peek() {
            Some('\'' | '"') => self.string().map(Value::Str),
            Some('(') => self.tuple().map(Value::Tuple),
            Some('[') => self.skip_list().map(|()| Value::List),
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    self.pos += 1;
                }
                let word: String = self
                    .chars
                    .get(start..self.pos)
                    .unwrap_or(&[])
                    .iter()
                    .collect();
                match word.as_str() {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    _ => Err(format!("unexpected word '{word}'")),
                }
            }
            _ => Err(format!("expected a value at character {}", self.pos)),
        }
    }

    /// `(2, 3)`, `(5,)`, `()`; each dimension a non-negative integer.
    fn tuple(&mut self) -> Result<Vec<usize>, String> {
        self.expect('(')?;
        let mut dims = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(')') {
                return Ok(dims);
            }
            dims.push(self.integer()?);
            self.skip_ws();
            if self.eat(')') {
                return Ok(dims);
            }
            self.expect(',')?;
        }
    }

    fn integer(&mut self) -> Result<usize, String> {
        let start = self.pos;
        let mut n: usize = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(d as usize))
                .ok_or("a dimension of the shape does not fit in usize")?;
            self.pos += 1;
        }
        if self.pos == start {
            return Err(format!(
                "expected a non-negative integer dimension at character {start}"
            ));
        }
        // Python 2 longs: `3L`.
        let _ = self.eat('L') || self.eat('l');
        Ok(n)
    }

    /// Skips a bracketed list (with nested brackets and strings).
    fn skip_list(&mut self) -> Result<(), String> {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '[' | '(' => depth += 1,
                ']' | ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                '\'' | '"' => {
                    self.string()?;
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
        }
        Err("unterminated list".to_owned())
    }
}
