//! Ordering inside a capture that spans several streams: which captured
//! work happens before which, so two branches never touch one buffer
//! unordered (a write against any other use).
//!
//! Each branch (0: the capture's own stream, then every stream forked into
//! it) keeps a vector clock; every captured task on a branch ticks that
//! branch's entry. A fork starts the new branch from the origin's clock, a
//! join merges the branch's clock into the origin's. A buffer remembers its
//! last write and, per branch, its last read; a task on branch `b` may read
//! it only if the last write happens before `b`'s present, and write it only
//! if every earlier use does. Within one branch the stream's order decides
//! and nothing is refused.

use crate::error::{Error, Result};
use crate::tracker::Access;

/// A task's place: (branch, that branch's clock entry after the task).
type Stamp = (usize, u64);

#[derive(Default)]
struct BufferUses {
    write: Option<Stamp>,
    /// The latest read per branch.
    reads: Vec<Stamp>,
}

/// Happens-before of the captured tasks over the capture's branches.
#[derive(Default)]
pub(crate) struct Hazards {
    clocks: Vec<Vec<u64>>,
    /// Per buffer key (its tracker's address): its uses so far.
    buffers: Vec<(usize, BufferUses)>,
}

impl Hazards {
    /// With the origin branch only.
    pub(crate) fn new() -> Hazards {
        Hazards {
            clocks: vec![vec![0]],
            buffers: Vec::new(),
        }
    }

    fn happens_before(&self, (branch, at): Stamp, now: usize) -> bool {
        self.clocks[now].get(branch).copied().unwrap_or(0) >= at
    }

    /// A new branch forked from the origin's present; its index.
    pub(crate) fn fork(&mut self) -> usize {
        let mut clock = self.clocks[0].clone();
        let index = self.clocks.len();
        clock.resize(index + 1, 0);
        self.clocks.push(clock);
        index
    }

    /// The origin waits for `branch`'s present.
    pub(crate) fn join(&mut self, branch: usize) {
        let theirs = self.clocks[branch].clone();
        let ours = &mut self.clocks[0];
        if ours.len() < theirs.len() {
            ours.resize(theirs.len(), 0);
        }
        for (o, t) in ours.iter_mut().zip(theirs) {
            *o = (*o).max(t);
        }
    }

    /// Refuses a task on `branch` touching `uses` (buffer key, access) if
    /// another branch's use of one of them is not ordered before it.
    pub(crate) fn check(&self, branch: usize, uses: &[(usize, Access)]) -> Result<()> {
        for &(buffer, access) in uses {
            let Some((_, seen)) = self.buffers.iter().find(|(k, _)| *k == buffer) else {
                continue;
            };
            let unordered_write = seen.write.filter(|&w| !self.happens_before(w, branch));
            let unordered_read = match access {
                Access::Write => seen
                    .reads
                    .iter()
                    .copied()
                    .find(|&r| !self.happens_before(r, branch)),
                Access::Read => None,
            };
            if let Some((other, _)) = unordered_write.or(unordered_read) {
                let (what, theirs) = match (access, unordered_write.is_some()) {
                    (Access::Write, true) => ("write", "writes"),
                    (Access::Write, false) => ("write", "reads"),
                    (Access::Read, _) => ("read", "writes"),
                };
                return Err(Error::invalid(format!(
                    "this captured task would {what} a buffer on {} while {} {theirs} it unordered: \
                     join that branch first (Capture::join), or keep both uses on one stream",
                    branch_name(branch),
                    branch_name(other),
                )));
            }
        }
        Ok(())
    }

    /// Records a task on `branch` touching `uses` (after [`Hazards::check`]).
    pub(crate) fn record(&mut self, branch: usize, uses: &[(usize, Access)]) {
        self.clocks[branch][branch] += 1;
        let stamp = (branch, self.clocks[branch][branch]);
        for &(buffer, access) in uses {
            let at = match self.buffers.iter().position(|(k, _)| *k == buffer) {
                Some(at) => at,
                None => {
                    self.buffers.push((buffer, BufferUses::default()));
                    self.buffers.len() - 1
                }
            };
            let seen = &mut self.buffers[at].1;
            match access {
                Access::Write => {
                    seen.write = Some(stamp);
                    seen.reads.clear();
                }
                Access::Read => match seen.reads.iter_mut().find(|(b, _)| *b == branch) {
                    Some(r) => *r = stamp,
                    None => seen.reads.push(stamp),
                },
            }
        }
    }
}

fn branch_name(branch: usize) -> String {
    if branch == 0 {
        "the capture's stream".into()
    } else {
        format!("branch {branch}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forked_branch_may_read_what_the_origin_wrote_before_the_fork() {
        let mut h = Hazards::new();
        h.record(0, &[(0, Access::Write)]);
        let b = h.fork();
        assert!(h.check(b, &[(0, Access::Read)]).is_ok());
    }

    #[test]
    fn two_branches_touching_one_buffer_unordered_are_refused_until_joined() {
        let mut h = Hazards::new();
        let b = h.fork();
        h.record(b, &[(0, Access::Write)]);
        assert!(
            h.check(0, &[(0, Access::Read)]).is_err(),
            "read of an unjoined write"
        );
        assert!(
            h.check(0, &[(0, Access::Write)]).is_err(),
            "write over an unjoined write"
        );
        h.join(b);
        assert!(h.check(0, &[(0, Access::Read)]).is_ok());
    }

    #[test]
    fn a_write_is_refused_while_another_branch_may_still_read() {
        let mut h = Hazards::new();
        let b = h.fork();
        h.record(b, &[(0, Access::Read)]);
        assert!(
            h.check(0, &[(0, Access::Read)]).is_ok(),
            "reads never conflict"
        );
        assert!(h.check(0, &[(0, Access::Write)]).is_err());
        h.join(b);
        assert!(h.check(0, &[(0, Access::Write)]).is_ok());
    }

    #[test]
    fn the_origin_writing_after_a_fork_is_unordered_with_the_branch() {
        let mut h = Hazards::new();
        let b = h.fork();
        h.record(0, &[(0, Access::Write)]);
        assert!(h.check(b, &[(0, Access::Read)]).is_err());
        let c = h.fork();
        assert!(
            h.check(c, &[(0, Access::Read)]).is_ok(),
            "a later fork sees it"
        );
    }
}
