//! A device's health, its stream priority range and the core limits of the
//! process (`Device::status`, `Device::stream_priority_range`,
//! `Device::core_limit` and friends).

mod common;

use ascendcl::prelude::*;
use ascendcl::{CoreKind, DeviceStatus, StreamFlags};

#[test]
fn an_opened_device_of_the_mock_is_normal() {
    common::check(|env| {
        let (device, _) = env.device0();
        assert_eq!(device.status()?, DeviceStatus::Normal);
        Ok(())
    });
}

#[test]
fn every_priority_of_the_range_creates_a_stream_and_the_range_is_seven_to_zero() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let range = device.stream_priority_range()?;
        assert_eq!((range.least, range.greatest), (7, 0));
        assert!(!range.contains(range.least + 1));
        for priority in range.greatest..=range.least {
            Stream::with_config(&ctx, priority, StreamFlags::default())?;
        }
        Ok(())
    });
}

#[test]
fn core_limits_start_at_the_totals_are_lowered_and_reset() {
    common::check(|env| {
        let (device, _) = env.device0();
        assert_eq!(device.core_limit(CoreKind::Cube)?, 24);
        assert_eq!(device.core_limit(CoreKind::Vector)?, 48);
        device.set_core_limit(CoreKind::Vector, 8)?;
        assert_eq!(device.core_limit(CoreKind::Vector)?, 8);
        assert_eq!(
            device.core_limit(CoreKind::Cube)?,
            24,
            "the other kind is untouched"
        );
        device.reset_core_limits()?;
        assert_eq!(device.core_limit(CoreKind::Vector)?, 48);
        Ok(())
    });
}

#[test]
fn a_core_limit_above_the_total_is_a_typed_error_and_keeps_the_limit() {
    common::check(|env| {
        let (device, _) = env.device0();
        device.set_core_limit(CoreKind::Cube, 4)?;
        let err = device.set_core_limit(CoreKind::Cube, 25).unwrap_err();
        assert_eq!(
            err.code(),
            Some(ascendcl::sys::ACL_ERROR_RT_PARAM_INVALID),
            "{err}"
        );
        assert_eq!(device.core_limit(CoreKind::Cube)?, 4);
        device.reset_core_limits()?;
        Ok(())
    });
}

#[test]
fn core_limits_are_per_device() {
    common::check(|env| {
        let (d0, _) = env.device0();
        let d1 = Device::open(&env.rt, 1)?;
        d1.set_core_limit(CoreKind::Cube, 2)?;
        assert_eq!(d0.core_limit(CoreKind::Cube)?, 24);
        assert_eq!(d1.core_limit(CoreKind::Cube)?, 2);
        assert_eq!(d1.status()?, DeviceStatus::Normal);
        Ok(())
    });
}
