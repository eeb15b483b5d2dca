//! The final table (markdown, so it pastes straight into BENCHMARKS.md) and the JSON figures.
//!
//! Each [`Row`] compares one vyre figure with one baseline figure of the same run on the same device.
//! The ratio is always *vyre / baseline* in the row's unit: for times lower is better, for
//! throughputs higher is better, and each row's goal says which way it must go.

use serde_json::{Value, json};

use crate::stats::Summary;

/// How a row's samples (always seconds) are shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Measure {
    /// As a duration.
    Time,
    /// As GB/s: `bytes` moved per sample (read plus written) divided by the sample.
    Throughput {
        /// Bytes read and written by one repetition.
        bytes: u64,
    },
    /// As TFLOP/s: `flops` floating-point operations per sample divided by the sample.
    Flops {
        /// Operations of one repetition.
        flops: u64,
    },
}

/// Which statistic of the samples a row compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stat {
    /// The median.
    P50,
    /// The 99th percentile.
    P99,
}

/// What a row must reach to meet issue 8's goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Goal {
    /// `vyre / baseline <= x`.
    RatioAtMost(f64),
    /// `vyre / baseline >= x`.
    RatioAtLeast(f64),
    /// The vyre figure is at most this many seconds.
    SecondsAtMost(f64),
    /// The vyre figure is at least this many GB/s (checked only on the device it names).
    GbpsAtLeast(f64, &'static str),
    /// The vyre figure is at least this many TFLOP/s (checked only on the devices it names).
    TflopsAtLeast(f64, &'static [&'static str]),
}

/// One line of the final table.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    /// The workload's name.
    pub(crate) workload: &'static str,
    /// The case: type, size, item count.
    pub(crate) case: String,
    /// What is measured, e.g. `device time` or `end-to-end`.
    pub(crate) figure: &'static str,
    /// What the baseline column is, e.g. `raw` or `vyre separate`.
    pub(crate) baseline_name: &'static str,
    /// How to show the samples.
    pub(crate) measure: Measure,
    /// Which statistic is compared.
    pub(crate) stat: Stat,
    /// The vyre samples, `None` when that side did not run.
    pub(crate) vyre: Option<Summary>,
    /// The baseline samples.
    pub(crate) baseline: Option<Summary>,
    /// The goal, if issue 8 sets one for this row.
    pub(crate) goal: Option<Goal>,
}

impl Row {
    fn pick(&self, s: &Summary) -> f64 {
        match self.stat {
            Stat::P50 => s.p50,
            Stat::P99 => s.p99,
        }
    }

    /// The displayed value of one side: seconds, or GB/s for throughput rows.
    fn value(&self, s: &Summary) -> f64 {
        let t = self.pick(s);
        match self.measure {
            Measure::Time => t,
            Measure::Throughput { bytes } => gbps(bytes, t),
            Measure::Flops { flops } => tflops(flops, t),
        }
    }

    /// `vyre / baseline` in the row's unit, when both sides ran.
    pub(crate) fn ratio(&self) -> Option<f64> {
        let (v, b) = (self.vyre.as_ref()?, self.baseline.as_ref()?);
        let (v, b) = (self.value(v), self.value(b));
        (b > 0.0).then(|| v / b)
    }

    /// Whether the goal is met; `None` when there is no goal, a side is missing, or the goal is for
    /// another device than `device_name`.
    pub(crate) fn met(&self, device_name: &str) -> Option<bool> {
        match self.goal? {
            Goal::RatioAtMost(x) => self.ratio().map(|r| r <= x),
            Goal::RatioAtLeast(x) => self.ratio().map(|r| r >= x),
            Goal::SecondsAtMost(s) => self.vyre.as_ref().map(|v| self.pick(v) <= s),
            Goal::GbpsAtLeast(g, device) => {
                if !device_name.contains(device) {
                    return None;
                }
                self.vyre.as_ref().map(|v| self.value(v) >= g)
            }
            Goal::TflopsAtLeast(t, devices) => {
                if !devices.iter().any(|d| device_name.contains(d)) {
                    return None;
                }
                self.vyre.as_ref().map(|v| self.value(v) >= t)
            }
        }
    }

    fn show(&self, s: Option<&Summary>) -> String {
        s.map_or_else(
            || "-".to_string(),
            |s| match self.measure {
                Measure::Time => format_seconds(self.value(s)),
                Measure::Throughput { .. } => format!("{:.2} GB/s", self.value(s)),
                Measure::Flops { .. } => format_tflops(self.value(s)),
            },
        )
    }
}

/// Bytes over seconds, in GB/s (10^9 bytes per second).
pub(crate) fn gbps(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds / 1e9
    } else {
        0.0
    }
}

/// Operations over seconds, in TFLOP/s (10^12 operations per second).
pub(crate) fn tflops(flops: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        flops as f64 / seconds / 1e12
    } else {
        0.0
    }
}

/// TFLOP/s, or GFLOP/s below one TFLOP/s (a CPU driver's figures).
pub(crate) fn format_tflops(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.2} TFLOP/s")
    } else {
        format!("{:.2} GFLOP/s", t * 1e3)
    }
}

/// A duration with a unit that keeps three significant digits readable.
pub(crate) fn format_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.2} us", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

fn format_goal(goal: Option<Goal>) -> String {
    match goal {
        None => String::new(),
        Some(Goal::RatioAtMost(x)) => format!("ratio <= {x}"),
        Some(Goal::RatioAtLeast(x)) => format!("ratio >= {x}"),
        Some(Goal::SecondsAtMost(s)) => format!("vyre <= {}", format_seconds(s)),
        Some(Goal::GbpsAtLeast(g, device)) => format!("vyre >= {g} GB/s on {device}"),
        Some(Goal::TflopsAtLeast(t, devices)) => {
            format!("vyre >= {t} TFLOP/s on {}", devices.join("/"))
        }
    }
}

fn format_met(row: &Row, device_name: &str) -> &'static str {
    match (row.goal, row.met(device_name)) {
        (None, _) => "",
        (Some(Goal::GbpsAtLeast(_, device)), None) if !device_name.contains(device) => "n/a here",
        (Some(Goal::TflopsAtLeast(_, devices)), None)
            if !devices.iter().any(|d| device_name.contains(d)) =>
        {
            "n/a here"
        }
        (Some(_), None) => "not run",
        (Some(_), Some(true)) => "yes",
        (Some(_), Some(false)) => "**NO**",
    }
}

fn spread(s: Option<&Summary>) -> String {
    s.map_or_else(
        || "-".to_string(),
        |s| format!("{:.0}%", s.relative_spread() * 100.0),
    )
}

/// The markdown table of every row.
pub(crate) fn table(rows: &[Row], device_name: &str) -> String {
    let mut out = String::from(
        "| workload | case | figure | vyre | baseline | vyre / baseline | spread (vyre, baseline) | goal | met |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let ratio = row
            .ratio()
            .map_or_else(|| "-".to_string(), |r| format!("{r:.3}"));
        let stat = match row.stat {
            Stat::P50 => "p50",
            Stat::P99 => "p99",
        };
        out.push_str(&format!(
            "| {} | {} | {} ({stat}) | {} | {}: {} | {ratio} | {}, {} | {} | {} |\n",
            row.workload,
            row.case,
            row.figure,
            row.show(row.vyre.as_ref()),
            row.baseline_name,
            row.show(row.baseline.as_ref()),
            spread(row.vyre.as_ref()),
            spread(row.baseline.as_ref()),
            format_goal(row.goal),
            format_met(row, device_name),
        ));
    }
    out
}

fn summary_json(s: Option<&Summary>) -> Value {
    s.map_or(Value::Null, |s| {
        json!({
            "count": s.count, "min_s": s.min, "p10_s": s.p10, "p50_s": s.p50, "p90_s": s.p90,
            "p99_s": s.p99, "max_s": s.max, "mean_s": s.mean,
        })
    })
}

/// One row as JSON: every statistic in seconds, plus GB/s where the row counts bytes.
pub(crate) fn row_json(row: &Row, device_name: &str) -> Value {
    let (bytes, flops) = match row.measure {
        Measure::Time => (Value::Null, Value::Null),
        Measure::Throughput { bytes } => (json!(bytes), Value::Null),
        Measure::Flops { flops } => (Value::Null, json!(flops)),
    };
    json!({
        "workload": row.workload,
        "case": row.case,
        "figure": row.figure,
        "stat": match row.stat { Stat::P50 => "p50", Stat::P99 => "p99" },
        "baseline_name": row.baseline_name,
        "bytes_per_rep": bytes,
        "flops_per_rep": flops,
        "vyre": summary_json(row.vyre.as_ref()),
        "baseline": summary_json(row.baseline.as_ref()),
        "vyre_gbps": row.vyre.as_ref().filter(|_| bytes.is_u64()).map(|s| row.value(s)),
        "baseline_gbps": row.baseline.as_ref().filter(|_| bytes.is_u64()).map(|s| row.value(s)),
        "vyre_tflops": row.vyre.as_ref().filter(|_| flops.is_u64()).map(|s| row.value(s)),
        "baseline_tflops": row.baseline.as_ref().filter(|_| flops.is_u64()).map(|s| row.value(s)),
        "ratio_vyre_over_baseline": row.ratio(),
        "goal": format_goal(row.goal),
        "goal_met": row.met(device_name),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(measure: Measure, vyre: f64, base: f64, goal: Goal) -> Row {
        Row {
            workload: "w",
            case: "c".into(),
            figure: "f",
            baseline_name: "raw",
            measure,
            stat: Stat::P50,
            vyre: Summary::of(&[vyre]),
            baseline: Summary::of(&[base]),
            goal: Some(goal),
        }
    }

    #[test]
    fn time_ratio_is_vyre_time_over_baseline_time() {
        let r = row(Measure::Time, 2.0, 1.0, Goal::RatioAtMost(1.1));
        assert_eq!(r.ratio(), Some(2.0));
        assert_eq!(r.met("x"), Some(false));
    }

    #[test]
    fn throughput_ratio_is_vyre_rate_over_baseline_rate() {
        let r = row(
            Measure::Throughput {
                bytes: 1_000_000_000,
            },
            2.0,
            1.0,
            Goal::RatioAtLeast(0.95),
        );
        assert_eq!(r.ratio(), Some(0.5));
        assert_eq!(r.met("x"), Some(false));
        let fast = row(
            Measure::Throughput {
                bytes: 1_000_000_000,
            },
            1.0,
            1.0,
            Goal::RatioAtLeast(0.95),
        );
        assert_eq!(fast.met("x"), Some(true));
    }

    #[test]
    fn device_specific_goals_apply_only_on_their_device() {
        let r = row(
            Measure::Throughput {
                bytes: 4_000_000_000,
            },
            1.0,
            1.0,
            Goal::GbpsAtLeast(3400.0, "H200"),
        );
        assert_eq!(r.met("llvmpipe"), None);
        assert_eq!(r.met("NVIDIA H200"), Some(false));
        assert!(table(std::slice::from_ref(&r), "llvmpipe").contains("n/a here"));
        let mut missing = r;
        missing.vyre = None;
        assert!(table(&[missing], "NVIDIA H200").contains("not run"));
    }

    #[test]
    fn flop_rows_compare_rates_and_their_goal_applies_on_the_named_devices() {
        let r = row(
            Measure::Flops {
                flops: 2_000_000_000_000,
            },
            0.1,
            0.05,
            Goal::TflopsAtLeast(30.0, &["H100", "H200"]),
        );
        assert_eq!(r.ratio(), Some(0.5));
        assert_eq!(r.met("llvmpipe"), None);
        assert_eq!(r.met("NVIDIA H100 80GB HBM3"), Some(false));
        assert!(table(std::slice::from_ref(&r), "llvmpipe").contains("20.00 TFLOP/s"));
        assert_eq!(row_json(&r, "x")["baseline_tflops"], json!(40.0));
    }

    #[test]
    fn a_missing_side_gives_no_ratio_and_not_run() {
        let mut r = row(Measure::Time, 1.0, 1.0, Goal::RatioAtMost(1.0));
        r.vyre = None;
        assert_eq!(r.ratio(), None);
        assert!(table(&[r.clone()], "x").contains("not run"));
        assert_eq!(row_json(&r, "x")["vyre"], Value::Null);
    }

    #[test]
    fn absolute_time_goals_look_at_the_vyre_side_only() {
        let fast = row(Measure::Time, 4e-6, 1.0, Goal::SecondsAtMost(5e-6));
        assert_eq!(fast.met("x"), Some(true));
        let slow = row(Measure::Time, 6e-6, 1e-9, Goal::SecondsAtMost(5e-6));
        assert_eq!(slow.met("x"), Some(false));
        assert!(table(&[slow], "x").contains("vyre <= 5.00 us"));
    }

    #[test]
    fn seconds_are_formatted_with_a_fitting_unit() {
        assert_eq!(format_seconds(2.5), "2.500 s");
        assert_eq!(format_seconds(0.0025), "2.500 ms");
        assert_eq!(format_seconds(0.0000025), "2.50 us");
        assert_eq!(format_seconds(0.0000000025), "2 ns");
    }
}
