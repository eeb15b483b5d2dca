//! Sample statistics: median, spread and percentiles of repeated timings.
//!
//! Every figure the benchmark reports is a [`Summary`] of many samples (seconds). The median is the
//! headline figure because one slow outlier (a page fault, a scheduler hiccup) should not move it; the
//! spread (`p10..p90` relative to the median) says how much to trust it.

/// The distribution of one set of timing samples, in seconds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Summary {
    /// How many samples were taken.
    pub(crate) count: usize,
    /// The fastest sample.
    pub(crate) min: f64,
    /// The 10th percentile.
    pub(crate) p10: f64,
    /// The median.
    pub(crate) p50: f64,
    /// The 90th percentile.
    pub(crate) p90: f64,
    /// The 99th percentile.
    pub(crate) p99: f64,
    /// The slowest sample.
    pub(crate) max: f64,
    /// The arithmetic mean.
    pub(crate) mean: f64,
}

impl Summary {
    /// Summarises `samples`; `None` when there are none or any is not a finite, non-negative number
    /// (a timestamp pair that went backwards would otherwise poison every percentile silently).
    pub(crate) fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() || samples.iter().any(|s| !s.is_finite() || *s < 0.0) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
        Some(Self {
            count: sorted.len(),
            min: sorted[0],
            p10: percentile(&sorted, 10.0),
            p50: percentile(&sorted, 50.0),
            p90: percentile(&sorted, 90.0),
            p99: percentile(&sorted, 99.0),
            max: sorted[sorted.len() - 1],
            mean,
        })
    }

    /// The spread as a fraction of the median: `(p90 - p10) / p50`.
    pub(crate) fn relative_spread(&self) -> f64 {
        if self.p50 > 0.0 {
            (self.p90 - self.p10) / self.p50
        } else {
            0.0
        }
    }
}

/// The `p`-th percentile of sorted samples, interpolating linearly between the two nearest ranks
/// (the common "R-7" definition, so the median of an even count is the mean of the middle two).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0) * (sorted.len() - 1) as f64;
    let low = rank.floor() as usize;
    let high = rank.ceil() as usize;
    let weight = rank - low as f64;
    sorted[low] + (sorted[high] - sorted[low]) * weight
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_count_is_the_middle_sample() {
        let s = Summary::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!(s.p50, 3.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 5.0);
        assert_eq!(s.count, 3);
    }

    #[test]
    fn median_of_even_count_interpolates() {
        let s = Summary::of(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.p50, 2.5);
        assert_eq!(s.mean, 2.5);
    }

    #[test]
    fn percentiles_interpolate_between_ranks() {
        let samples: Vec<f64> = (0..=100).map(f64::from).collect();
        let s = Summary::of(&samples).unwrap();
        assert_eq!(s.p10, 10.0);
        assert_eq!(s.p90, 90.0);
        assert_eq!(s.p99, 99.0);
        assert!((s.relative_spread() - 1.6).abs() < 1e-12);
    }

    #[test]
    fn one_outlier_does_not_move_the_median() {
        let s = Summary::of(&[1.0, 1.0, 1.0, 1.0, 1000.0]).unwrap();
        assert_eq!(s.p50, 1.0);
        assert_eq!(s.max, 1000.0);
    }

    #[test]
    fn empty_or_invalid_samples_give_none() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
        assert!(Summary::of(&[1.0, -1.0]).is_none());
    }
}
