//! A minimal `log` logger for the binaries: one line per record on standard error, so that a
//! process supervisor (or the cluster test) can read what Ballista is doing without a logging
//! framework in the build.

use log::{LevelFilter, Log, Metadata, Record};

/// Sends `log` records at `level` or above to standard error, once per process; a second call
/// changes nothing.
pub fn log_to_stderr(level: LevelFilter) {
    static LOGGER: StderrLogger = StderrLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}

struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("{} {}: {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

/// A log level from its name (`off`, `error`, `warn`, `info`, `debug`, `trace`), for the binaries'
/// `--log-level` flag.
///
/// # Errors
///
/// A message with a `Fix:` for any other text.
pub fn parse_level(text: &str) -> Result<LevelFilter, String> {
    text.parse().map_err(|_| {
        format!("`{text}` is not a log level. Fix: write off, error, warn, info, debug or trace.")
    })
}
