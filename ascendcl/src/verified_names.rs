//! Names already checked to resolve, so a launch does not check them again.
//!
//! Before an operator's phase 1 (both of its functions must exist, or the
//! executor phase 1 makes could never run) and before a collective (an
//! optional HCCL function), the loader is asked whether a function resolves.
//! That question is a match over every declared name and, for an operator,
//! two formatted strings: a cost paid on every launch for an answer that
//! never changes. A `VerifiedNames` remembers the names that passed, for one
//! library (the first that asks: a process normally has one), in a fixed
//! lock-free table keyed by the name's address and length: a hit is one hash
//! and an atomic load or two, no lock, no allocation. Names of another
//! library, or past a full table, are simply checked every time.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Slots in the table: more than the functions the crate declares.
const SLOTS: usize = 512;

/// A set of `&'static str` names that passed a check, for one library.
pub(crate) struct VerifiedNames {
    /// The library the names were checked against (its address), or 0.
    owner: AtomicUsize,
    /// Keys ([`key`]), 0 for empty; open addressing, linear probing.
    slots: [AtomicUsize; SLOTS],
}

/// A name's key: its address and length (user-space addresses fit in 48
/// bits, names in 16), never 0.
fn key(name: &'static str) -> usize {
    let address = name.as_ptr() as usize & ((1 << 48) - 1);
    address | (name.len() & 0xffff) << 48 | 1
}

impl VerifiedNames {
    pub(crate) const fn new() -> Self {
        VerifiedNames {
            owner: AtomicUsize::new(0),
            slots: [const { AtomicUsize::new(0) }; SLOTS],
        }
    }

    /// `Ok(())` if `name` passed `verify` before for `library`; else runs
    /// `verify` and remembers a pass. Failures are never remembered.
    #[inline]
    pub(crate) fn check<T, E>(
        &self,
        library: &'static T,
        name: &'static str,
        verify: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let owner = library as *const T as usize;
        let key = key(name);
        if self.owner.load(Ordering::Acquire) == owner && self.contains(key) {
            return Ok(());
        }
        verify()?;
        // The first library to pass a check owns the table.
        let _ = self
            .owner
            .compare_exchange(0, owner, Ordering::AcqRel, Ordering::Acquire);
        if self.owner.load(Ordering::Acquire) == owner {
            self.insert(key);
        }
        Ok(())
    }

    fn start(key: usize) -> usize {
        // Fibonacci hashing of the key.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % SLOTS
    }

    fn contains(&self, key: usize) -> bool {
        let start = Self::start(key);
        for i in 0..SLOTS {
            match self.slots[(start + i) % SLOTS].load(Ordering::Acquire) {
                0 => return false,
                k if k == key => return true,
                _ => {}
            }
        }
        false
    }

    fn insert(&self, key: usize) {
        let start = Self::start(key);
        for i in 0..SLOTS {
            let slot = &self.slots[(start + i) % SLOTS];
            match slot.compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return,
                Err(k) if k == key => return,
                Err(_) => {}
            }
        }
        // Full: the name is checked every time (never wrong, only slower).
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static LIB_A: u8 = 0;
    static LIB_B: u8 = 0;

    #[test]
    fn a_name_is_verified_once_for_its_library_and_failures_are_checked_again() {
        let names = VerifiedNames::new();
        let mut calls = 0;
        for _ in 0..3 {
            names
                .check(&LIB_A, "Relu", || {
                    calls += 1;
                    Ok::<(), ()>(())
                })
                .unwrap();
        }
        assert_eq!(calls, 1);
        let mut failures = 0;
        for _ in 0..2 {
            let result = names.check(&LIB_A, "Missing", || {
                failures += 1;
                Err(())
            });
            assert!(result.is_err());
        }
        assert_eq!(failures, 2, "a failure is never remembered");
    }

    #[test]
    fn names_of_another_library_are_checked_every_time() {
        let names = VerifiedNames::new();
        names.check(&LIB_A, "Add", || Ok::<(), ()>(())).unwrap();
        let mut calls = 0;
        for _ in 0..2 {
            names
                .check(&LIB_B, "Add", || {
                    calls += 1;
                    Ok::<(), ()>(())
                })
                .unwrap();
        }
        assert_eq!(calls, 2);
    }

    #[test]
    fn a_name_that_shares_an_address_but_not_a_length_is_a_different_name() {
        let both: &'static str = "AddRelu";
        let (short, long) = (&both[..3], both);
        let names = VerifiedNames::new();
        names.check(&LIB_A, long, || Ok::<(), ()>(())).unwrap();
        let mut calls = 0;
        names
            .check(&LIB_A, short, || {
                calls += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(calls, 1);
    }

    #[test]
    fn a_full_table_still_answers_correctly() {
        let names = VerifiedNames::new();
        let many: Vec<&'static str> = (0..SLOTS + 10)
            .map(|i| &*Box::leak(format!("Op{i}").into_boxed_str()))
            .collect();
        for name in &many {
            names.check(&LIB_A, name, || Ok::<(), ()>(())).unwrap();
        }
        // Remembered names pass without a check; the rest are checked (and
        // fail here).
        let mut checked = 0;
        let passed = many
            .iter()
            .filter(|name| {
                names
                    .check(&LIB_A, name, || {
                        checked += 1;
                        Err(())
                    })
                    .is_ok()
            })
            .count();
        assert_eq!((passed, checked), (SLOTS, 10));
    }
}
