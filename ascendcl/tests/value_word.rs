//! `ValueWord`, `Stream::write_value`, `Stream::wait_value`: the word's
//! tracker orders them like copies (a write is a write, a wait a read), so
//! host reads and other streams never see the word before a queued write
//! has run, and a write that could only deadlock behind a wait is refused.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Error, ValueCondition, ValueWord};

#[test]
fn a_wait_on_another_stream_is_ordered_after_the_write_queued_before_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(20));
        let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut ready = ValueWord::new(&ctx, 0)?;
        producer.write_value(&mut ready, 42)?.detach();
        let waited = consumer.wait_value(&ready, 42, ValueCondition::Equal)?;
        waited.wait()?;
        assert_eq!(ready.get()?, 42);
        Ok(())
    });
}

#[test]
fn a_host_read_of_the_word_waits_for_a_queued_write() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(30));
        let stream = Stream::new(&ctx)?;
        let mut word = ValueWord::new(&ctx, 1)?;
        stream.write_value(&mut word, 2)?.detach();
        assert_eq!(word.get()?, 2, "the read waited for the write");
        Ok(())
    });
}

#[test]
fn a_write_is_refused_while_a_wait_of_the_word_may_still_run() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(50));
        let (a, b) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut word = ValueWord::new(&ctx, 5)?;
        let waited = a.wait_value(&word, 5, ValueCondition::AtLeast)?;
        let refused = b.write_value(&mut word, 6).unwrap_err();
        assert!(matches!(refused, Error::WouldDeadlock(_)), "{refused}");
        let same_stream = a.write_value(&mut word, 6).unwrap_err();
        assert!(
            matches!(same_stream, Error::WouldDeadlock(_)),
            "{same_stream}"
        );
        waited.wait()?;
        b.write_value(&mut word, 6)?.wait()?;
        assert_eq!(word.get()?, 6);
        Ok(())
    });
}

#[test]
fn every_condition_releases_a_wait_whose_word_meets_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let word = ValueWord::new(&ctx, 0b0110)?;
        for (value, until) in [
            (0b0110, ValueCondition::Equal),
            (0b0100, ValueCondition::AtLeast),
            (0b0010, ValueCondition::AnyBitOf),
            (0b0001, ValueCondition::SomeBitClearInBoth),
        ] {
            assert!(until.holds(0b0110, value), "{until:?}");
            stream.wait_value(&word, value, until)?.wait()?;
        }
        Ok(())
    });
}

#[test]
fn value_conditions_compare_as_the_runtime_documents() {
    assert!(
        ValueCondition::AtLeast.holds(1, u64::MAX),
        "1 - (-1) >= 0 across the wrap"
    );
    assert!(!ValueCondition::AtLeast.holds(4, 5));
    assert!(!ValueCondition::Equal.holds(4, 5));
    assert!(!ValueCondition::AnyBitOf.holds(0b0011, 0b0100));
    assert!(!ValueCondition::SomeBitClearInBoth.holds(u64::MAX, 0));
    assert!(ValueCondition::SomeBitClearInBoth.holds(u64::MAX - 1, 0));
}

#[test]
fn a_word_of_another_device_is_refused_before_anything_is_queued() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let other = Device::open(&env.rt, 1)?.default_context();
        let stream = Stream::new(&ctx)?;
        let mut word = ValueWord::new(&other, 0)?;
        let refused = stream.write_value(&mut word, 1).unwrap_err();
        assert!(matches!(refused, Error::InvalidArgument(_)), "{refused}");
        let refused = stream
            .wait_value(&word, 1, ValueCondition::Equal)
            .unwrap_err();
        assert!(matches!(refused, Error::InvalidArgument(_)), "{refused}");
        assert_eq!(env.session.call_count("aclrtValueWrite"), 0);
        assert_eq!(env.session.call_count("aclrtValueWait"), 0);
        Ok(())
    });
}

#[test]
fn dropping_the_word_waits_for_its_queued_wait() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(30));
        let stream = Stream::new(&ctx)?;
        let word = ValueWord::new(&ctx, 3)?;
        let waited = stream.wait_value(&word, 3, ValueCondition::Equal)?;
        drop(word); // frees the word only after the wait ran: no use after free
        assert!(waited.is_complete()?);
        Ok(())
    });
}
