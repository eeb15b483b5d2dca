//! Human-readable renderings of reports: the area x backend table and one failure in full.

use std::fmt::Write;

use crate::catalogue::Area;
use crate::report::{CaseResult, ConformanceReport, Culprit};

/// A table with one row per area and one column per report (backend): `passed/total` in each cell,
/// marked `FAIL` when a case failed, and a total row.
#[must_use]
pub fn render_table(reports: &[ConformanceReport]) -> String {
    let headers: Vec<String> = reports.iter().map(|r| r.backend.clone()).collect();
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for area in Area::ALL {
        let cells: Vec<String> = reports.iter().map(|r| cell(r, Some(area))).collect();
        if cells.iter().any(|c| !c.is_empty()) {
            rows.push((area.name().to_string(), cells));
        }
    }
    rows.push((
        "total".to_string(),
        reports.iter().map(|r| cell(r, None)).collect(),
    ));
    let first = rows.iter().map(|(a, _)| a.len()).max().unwrap_or(4).max(4);
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(k, h)| {
            rows.iter()
                .map(|(_, c)| c[k].len())
                .max()
                .unwrap_or(0)
                .max(h.len())
        })
        .collect();
    let mut out = String::new();
    let _ = write!(out, "{:<first$}", "area");
    for (h, w) in headers.iter().zip(&widths) {
        let _ = write!(out, "  {h:>w$}");
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        "-".repeat(first + widths.iter().map(|w| w + 2).sum::<usize>())
    );
    for (area, cells) in rows {
        let _ = write!(out, "{area:<first$}");
        for (c, w) in cells.iter().zip(&widths) {
            let _ = write!(out, "  {c:>w$}");
        }
        out.push('\n');
    }
    out
}

/// `passed/total` of one area (or all, for `None`), with a `FAIL` mark when a case failed and the
/// count of cases not supported on this device; empty when nothing ran.
fn cell(report: &ConformanceReport, area: Option<Area>) -> String {
    let (passed, unsupported, total) = report
        .cases
        .iter()
        .filter(|c| area.is_none_or(|a| c.area == a))
        .fold((0, 0, 0), |(p, u, t), c| {
            (
                p + usize::from(c.passed),
                u + usize::from(c.unsupported.is_some()),
                t + 1,
            )
        });
    let counts = match unsupported {
        0 => format!("{passed}/{total}"),
        _ => format!("{passed}/{total} ({unsupported} not supported on this device)"),
    };
    match total {
        0 => String::new(),
        _ if passed + unsupported == total => counts,
        _ => format!("FAIL {counts}"),
    }
}

/// One failed case in full: who failed, inputs, expected, got, where, and the program text.
#[must_use]
pub fn render_failure(backend: &str, case: &CaseResult) -> String {
    if let Some(features) = &case.unsupported {
        return format!(
            "{} [{}] not supported on this device: {backend} lacks {features}\n",
            case.name, case.area
        );
    }
    let Some(failure) = &case.failure else {
        return format!("{} [{}] passed on {backend}\n", case.name, case.area);
    };
    let who = match failure.culprit {
        Culprit::Backend => format!("backend `{backend}`"),
        Culprit::Reference => {
            "the reference backend (it disagrees with the hand-written expectation)".to_string()
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "FAILED {} [{}], batch `{}`",
        case.name, case.area, case.batch
    );
    let _ = writeln!(out, "  wrong:    {who}");
    let _ = writeln!(out, "  inputs:   {}", failure.inputs);
    let _ = writeln!(out, "  expected: {}", failure.expected);
    let _ = writeln!(out, "  got:      {}", failure.got);
    let _ = writeln!(out, "  at:       {}", failure.location);
    let _ = writeln!(out, "  program:");
    for line in failure.program.lines() {
        let _ = writeln!(out, "    {line}");
    }
    out
}
