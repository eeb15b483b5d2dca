//! How repetitions are timed so that the two sides of a comparison see the same machine.
//!
//! GPU clocks, the host's caches and the bus all drift during a run (on the H200 the SM clock fell
//! from 1980 to 345 MHz within seconds of a mostly idle GPU). Timing one side completely and then the
//! other would charge that drift to whichever side runs second. So the sides are interleaved: every
//! round runs each side once, and the side that goes first alternates between rounds. Device time is
//! taken the same way, in alternating batches, each after a burst that raises the clocks.

use std::time::Instant;

use crate::gpu::BenchResult;

/// How many times each kind of figure is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Reps {
    /// Untimed repetitions of each side before the first timed one.
    pub(crate) warmup: usize,
    /// Timed repetitions of each side.
    pub(crate) timed: usize,
    /// Seconds of back-to-back dispatches before each device-time batch (clock warm-up).
    pub(crate) spin: f64,
}

/// One side's single repetition.
pub(crate) type Step<'a> = &'a mut dyn FnMut() -> BenchResult<()>;

/// One side's single repetition that times itself: it first does what must not be timed (building
/// its inputs fresh, so that they are as warm in the host's caches as a caller's just-built data), then
/// returns the seconds of the part that is.
pub(crate) type TimedStep<'a> = &'a mut dyn FnMut() -> BenchResult<f64>;

/// Host-clock time of each side's repetitions, interleaved: `warmup` untimed rounds, then `timed`
/// rounds in which every side runs once, the first side alternating. Returns one sample list per side.
pub(crate) fn interleave(reps: Reps, sides: &mut [Step<'_>]) -> BenchResult<Vec<Vec<f64>>> {
    let mut timed: Vec<_> = sides
        .iter_mut()
        .map(|side| {
            move || {
                let start = Instant::now();
                side()?;
                Ok(start.elapsed().as_secs_f64())
            }
        })
        .collect();
    let mut steps: Vec<TimedStep<'_>> = timed.iter_mut().map(|t| t as TimedStep<'_>).collect();
    interleave_timed(reps, &mut steps)
}

/// [`interleave`] for sides that time themselves.
pub(crate) fn interleave_timed(
    reps: Reps,
    sides: &mut [TimedStep<'_>],
) -> BenchResult<Vec<Vec<f64>>> {
    let mut samples = vec![Vec::with_capacity(reps.timed); sides.len()];
    for round in 0..reps.warmup + reps.timed {
        for k in 0..sides.len() {
            let side = (k + round) % sides.len();
            let elapsed = (sides[side])()?;
            if round >= reps.warmup {
                samples[side].push(elapsed);
            }
        }
    }
    if std::env::var_os("VYRE_BENCH_TRACE").is_some() {
        for (side, times) in samples.iter().enumerate() {
            let us: Vec<String> = times.iter().map(|t| format!("{:.0}", t * 1e6)).collect();
            eprintln!(
                "trace: side {side} wall times (us, in order): {}",
                us.join(" ")
            );
        }
    }
    Ok(samples)
}

/// One side's device-time batch: `reps` timed dispatches, `None` when the side cannot time them.
pub(crate) type Batch<'a> = &'a mut dyn FnMut(usize) -> BenchResult<Option<Vec<f64>>>;

/// Device time of each side in `rounds` alternating batches that together hold `reps` samples per
/// side. A side that cannot time its dispatches gets `None`.
pub(crate) fn interleave_batches(
    reps: usize,
    rounds: usize,
    sides: &mut [Batch<'_>],
) -> BenchResult<Vec<Option<Vec<f64>>>> {
    let rounds = rounds.clamp(1, reps.max(1));
    let mut samples: Vec<Option<Vec<f64>>> = vec![Some(Vec::new()); sides.len()];
    for round in 0..rounds {
        let count = reps / rounds + usize::from(round < reps % rounds);
        for k in 0..sides.len() {
            let side = (k + round) % sides.len();
            let batch = (sides[side])(count)?;
            samples[side] = match (samples[side].take(), batch) {
                (Some(mut all), Some(more)) => {
                    all.extend(more);
                    Some(all)
                }
                _ => None,
            };
        }
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_side_runs_warmup_plus_timed_times_and_keeps_only_timed_samples() {
        let (mut a_runs, mut b_runs) = (0, 0);
        let mut a = || {
            a_runs += 1;
            Ok(())
        };
        let mut b = || {
            b_runs += 1;
            Ok(())
        };
        let reps = Reps {
            warmup: 2,
            timed: 5,
            spin: 0.0,
        };
        let samples = interleave(reps, &mut [&mut a, &mut b]).unwrap();
        assert_eq!((a_runs, b_runs), (7, 7));
        assert_eq!(samples.iter().map(Vec::len).collect::<Vec<_>>(), vec![5, 5]);
    }

    #[test]
    fn the_first_side_alternates_between_rounds() {
        let order = std::cell::RefCell::new(Vec::new());
        let mut a = || {
            order.borrow_mut().push('a');
            Ok(())
        };
        let mut b = || {
            order.borrow_mut().push('b');
            Ok(())
        };
        let reps = Reps {
            warmup: 0,
            timed: 2,
            spin: 0.0,
        };
        interleave(reps, &mut [&mut a, &mut b]).unwrap();
        assert_eq!(order.into_inner(), vec!['a', 'b', 'b', 'a']);
    }

    #[test]
    fn an_error_stops_the_measurement() {
        let mut bad = || Err("broken. Fix: none.".to_string());
        let reps = Reps {
            warmup: 0,
            timed: 3,
            spin: 0.0,
        };
        assert!(interleave(reps, &mut [&mut bad]).is_err());
    }

    #[test]
    fn batches_split_the_samples_and_a_side_without_timestamps_gets_none() {
        let mut sizes = Vec::new();
        let mut timed = |n: usize| {
            sizes.push(n);
            Ok(Some(vec![1.0; n]))
        };
        let mut untimed = |_n: usize| Ok(None);
        let out = interleave_batches(7, 3, &mut [&mut timed, &mut untimed]).unwrap();
        assert_eq!(out[0].as_ref().map(Vec::len), Some(7));
        assert_eq!(out[1], None);
        assert_eq!(sizes, vec![3, 2, 2]);
    }
}
