// Being current is a property of one thread: the proof cannot move.
fn bind_elsewhere(ctx: &ascendcl::Context) -> ascendcl::Result<()> {
    let current = ctx.make_current()?;
    std::thread::scope(|s| {
        s.spawn(move || drop(current));
    });
    Ok(())
}

fn main() {}
