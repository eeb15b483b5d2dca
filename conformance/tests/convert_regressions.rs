//! One-off: rewrites every checked-in regression file in version 2 (program as text), under the
//! name its program's new fingerprint gives, checking that nothing is lost. Run once with
//! `VYRE_CONVERT_REGRESSIONS=1`; removed again once the files are converted.

use vyre_conformance::fuzz::{self, Regression};

#[test]
fn convert_checked_in_regressions_to_version_2() {
    if std::env::var_os("VYRE_CONVERT_REGRESSIONS").is_none() {
        eprintln!("skipped: set VYRE_CONVERT_REGRESSIONS=1 to convert the regression files");
        return;
    }
    let dir = fuzz::checked_in_dir();
    let cases = Regression::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(!cases.is_empty());
    for (old_path, case) in &cases {
        let json = case.to_json();
        let back = Regression::from_json(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            &back,
            case,
            "{} does not survive version 2",
            old_path.display()
        );
        std::fs::remove_file(old_path).unwrap_or_else(|e| panic!("{e}"));
        let new_path = case.save(&dir).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{} -> {}", old_path.display(), new_path.display());
    }
    assert_eq!(Regression::load_dir(&dir).map(|c| c.len()), Ok(cases.len()));
}
