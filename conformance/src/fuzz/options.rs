//! What a fuzz run is asked to do, and where it stands.

use std::path::PathBuf;
use std::time::Duration;

use vyre_driver::DispatchConfig;

use crate::r#gen::{GenConfig, GeneratedCase};

/// What [`run`](crate::fuzz::run) does.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// How many programs to run.
    pub cases: u64,
    /// The seed; the same seed and configuration give the same programs.
    pub seed: u64,
    /// What the programs may contain. Keep `comparable` on: only such programs have one right answer.
    pub config: GenConfig,
    /// Where to save minimal failing cases; `None` saves nothing.
    pub regressions_dir: Option<PathBuf>,
    /// Shrink this many mismatches, then stop at the end of the batch (shrinking takes a while); `0`
    /// shrinks none and stops at the end of the first batch with a mismatch.
    pub max_mismatches: usize,
    /// The most recipe-shrinking steps per mismatch.
    pub shrink_steps: usize,
    /// The most IR-reduction candidates tried per mismatch.
    pub reduce_attempts: usize,
    /// Stop starting new batches after this long.
    pub time_limit: Option<Duration>,
    /// Cases per parallel batch (progress is reported after each).
    pub batch: usize,
    /// The reference's execution budget per dispatch, in IR operations.
    pub fuel: u64,
    /// The wall-clock limit per dispatch on either backend.
    pub dispatch_timeout: Duration,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        Self {
            cases: 1000,
            seed: 0,
            config: GenConfig::differential(),
            regressions_dir: None,
            max_mismatches: 3,
            shrink_steps: 2000,
            reduce_attempts: 3000,
            time_limit: None,
            batch: 256,
            fuel: 20_000_000,
            dispatch_timeout: Duration::from_secs(30),
        }
    }
}

/// Where a run stands; passed to the progress callback after every batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuzzProgress {
    /// Programs run so far.
    pub done: u64,
    /// Programs the run will try.
    pub total: u64,
    /// Mismatches found so far.
    pub mismatches: usize,
    /// Programs not compared so far (see [`SkipReason`](crate::fuzz::SkipReason)).
    pub skipped: u64,
    /// IR operations the reference executed so far.
    pub ops_executed: u64,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// A case's dispatch configuration with the run's fuel and timeout.
pub(crate) fn dispatch_config(options: &FuzzOptions, case: &GeneratedCase) -> DispatchConfig {
    let mut config = case.config.clone();
    config.fuel = Some(options.fuel);
    config.timeout = Some(options.dispatch_timeout);
    config
}
