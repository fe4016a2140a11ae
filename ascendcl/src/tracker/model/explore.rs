//! The exhaustive search over a [`World`]'s interleavings.

use std::collections::HashSet;

use super::World;

/// Explores every interleaving; returns the states seen, or the first
/// violation with the steps that led to it.
pub(super) fn explore(start: World) -> Result<usize, String> {
    let mut seen = HashSet::new();
    let mut stack = vec![(start, Vec::<String>::new())];
    while let Some((world, trail)) = stack.pop() {
        if !seen.insert(world.key()) {
            continue;
        }
        let mut moved = false;
        let actors = world.threads.len() + world.streams.len();
        for actor in 0..actors {
            let mut next = world.clone();
            let (step, name) = if actor < world.threads.len() {
                (next.step_thread(actor), format!("thread {actor}"))
            } else {
                let s = actor - world.threads.len();
                (next.step_device(s), format!("stream {s}"))
            };
            match step {
                None => {}
                Some(Err(violation)) => {
                    return Err(format!(
                        "{violation}\nafter: {}",
                        [trail, vec![name]].concat().join(", ")
                    ));
                }
                Some(Ok(())) => {
                    moved = true;
                    let mut trail = trail.clone();
                    trail.push(name);
                    stack.push((next, trail));
                }
            }
        }
        if !moved && !world.done() {
            return Err(format!("deadlock after: {}", trail.join(", ")));
        }
    }
    Ok(seen.len())
}
