//! Progress of a long run: an indicatif bar (rate, elapsed, ETA) on a terminal, and on anything else
//! (a CI log, a pipe) plain lines, at most one every [`PLAIN_EVERY`] plus the last, with the same
//! figures and no carriage returns.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The shortest gap between two plain progress lines.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// One progress display, on stderr. Shared by reference with worker threads (`Sync`).
pub(crate) struct Meter {
    label: String,
    unit: &'static str,
    started: Instant,
    output: Output,
}

enum Output {
    /// Nothing at all (`--quiet`).
    Silent,
    /// A bar redrawn in place on a terminal.
    Bar(ProgressBar),
    /// Lines, with the time of the last one printed (`None` before the first).
    Plain(Mutex<Option<Instant>>),
}

impl Meter {
    /// A meter of `total` `unit`s (e.g. "programs") labelled `label`; silent when `quiet`.
    pub(crate) fn new(label: &str, total: u64, unit: &'static str, quiet: bool) -> Self {
        let output = if quiet {
            Output::Silent
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let template = format!(
                "{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{per_sec}} elapsed {{elapsed}} ETA {{eta}} {{msg}}"
            );
            // The template is a constant apart from the unit; a bad one falls back to the default.
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(label.to_string());
            // Redrawn twice a second, so elapsed and ETA move during a long step too.
            bar.enable_steady_tick(Duration::from_millis(500));
            Output::Bar(bar)
        } else {
            Output::Plain(Mutex::new(None))
        };
        Self {
            label: label.to_string(),
            unit,
            started: Instant::now(),
            output,
        }
    }

    /// `done` of `total` units finished; `message` says what else there is to say (mismatches, the
    /// last batch).
    pub(crate) fn update(&self, done: u64, total: u64, message: &str) {
        match &self.output {
            Output::Silent => {}
            Output::Bar(bar) => {
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(message.to_string());
            }
            Output::Plain(last) => {
                let now = Instant::now();
                let Ok(mut last) = last.lock() else { return };
                let due = last.is_none_or(|t| now.duration_since(t) >= PLAIN_EVERY);
                if due || done >= total {
                    *last = Some(now);
                    let line = plain_line(
                        &self.label,
                        self.unit,
                        done,
                        total,
                        now.duration_since(self.started),
                        message,
                    );
                    let _ = writeln!(std::io::stderr().lock(), "{line}");
                }
            }
        }
    }

    /// Ends the display (a bar stays on screen with its final figures).
    pub(crate) fn finish(&self) {
        if let Output::Bar(bar) = &self.output {
            bar.finish();
        }
    }
}

/// `  fuzz: 512/10000 programs, 85.3/s, elapsed 6s, ETA 1m51s, 0 mismatches`.
fn plain_line(
    label: &str,
    unit: &str,
    done: u64,
    total: u64,
    elapsed: Duration,
    message: &str,
) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    let eta = if done >= total {
        "done".to_string()
    } else if rate > 0.0 {
        clock(Duration::from_secs_f64((total - done) as f64 / rate))
    } else {
        "unknown".to_string()
    };
    let mut line = format!(
        "  {label}: {done}/{total} {unit}, {rate:.1}/s, elapsed {}, ETA {eta}",
        clock(elapsed)
    );
    if !message.is_empty() {
        line.push_str(", ");
        line.push_str(message);
    }
    line
}

/// `4s`, `3m07s` or `2h05m`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_gives_rate_elapsed_and_eta() {
        let line = plain_line(
            "fuzz",
            "programs",
            100,
            1000,
            Duration::from_secs(10),
            "0 mismatches",
        );
        assert_eq!(
            line,
            "  fuzz: 100/1000 programs, 10.0/s, elapsed 10s, ETA 1m30s, 0 mismatches"
        );
    }

    #[test]
    fn a_finished_run_says_done_and_an_unstarted_one_unknown() {
        assert!(plain_line("x", "u", 5, 5, Duration::from_secs(1), "").ends_with("ETA done"));
        assert!(plain_line("x", "u", 0, 5, Duration::ZERO, "").ends_with("ETA unknown"));
    }

    #[test]
    fn clocks_read_as_seconds_minutes_or_hours() {
        assert_eq!(clock(Duration::from_secs(59)), "59s");
        assert_eq!(clock(Duration::from_secs(187)), "3m07s");
        assert_eq!(clock(Duration::from_secs(7500)), "2h05m");
    }
}
