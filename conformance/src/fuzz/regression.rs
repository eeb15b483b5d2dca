//! Regression cases: minimal failing cases saved as JSON files and replayed by the test suite.
//!
//! A file (JSON, version 2) holds the program in its text form, one line per string, the input bytes
//! as hex, the grid, a note saying what failed, and the recipe when there is one. `FUZZING.md` says
//! why text.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use vyre_driver::DispatchConfig;

use crate::fuzz::program_text::ProgramJson;
use crate::r#gen::{GeneratedCase, Recipe};

/// The environment variable naming the repository's root, for binaries run away from the checkout
/// they were built in (a test binary carried to another machine): fixtures are found under it.
pub const REPO_ENV: &str = "VYRE_REPO";

/// The directory of the checked-in regression cases: `conformance/regressions` under `VYRE_REPO`
/// when it is set, else in the checkout this crate was built from.
#[must_use]
pub fn checked_in_dir() -> PathBuf {
    match std::env::var_os(REPO_ENV) {
        Some(root) => Path::new(&root).join("conformance").join("regressions"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions"),
    }
}

/// One saved case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regression {
    /// What failed when the case was saved, and against which backend.
    pub note: String,
    /// The program, its inputs and its grid.
    pub case: GeneratedCase,
    /// The recipe the case came from, when it came from one (reduction may have changed it since).
    pub recipe: Option<Recipe>,
}

/// Version 2: the program in its text form, one line per string (readable in a bug report, and
/// parsed back with `str::parse::<Program>`).
#[derive(Serialize, Deserialize)]
struct RegressionFile {
    version: u32,
    note: String,
    program: ProgramJson,
    inputs: Vec<String>,
    grid: Option<[u32; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recipe: Option<Recipe>,
}

#[derive(Deserialize)]
struct Version {
    version: u32,
}

impl Regression {
    /// The case as pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        let file = RegressionFile {
            version: 2,
            note: self.note.clone(),
            program: ProgramJson::from_program(&self.case.program),
            inputs: self.case.inputs.iter().map(|b| hex(b)).collect(),
            grid: self.case.config.grid,
            recipe: self.recipe.clone(),
        };
        serde_json::to_string_pretty(&file).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Parses a case written by [`Regression::to_json`].
    ///
    /// # Errors
    ///
    /// A message saying what is malformed, ending with a `Fix:`.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let fix = "Fix: restore the file from version control, or delete it.";
        let bad = |e: serde_json::Error| format!("not a regression case: {e}. {fix}");
        let version: Version = serde_json::from_str(json).map_err(bad)?;
        if version.version != 2 {
            return Err(format!(
                "regression file version {} is not 2 (version 1 kept the program in a JSON mirror of the IR). \
                 Fix: convert a version-1 file with tests/convert_regressions.rs of vyre commit 36ef261, or delete it.",
                version.version
            ));
        }
        let file: RegressionFile = serde_json::from_str(json).map_err(bad)?;
        let program = file.program.to_program()?;
        let inputs = file
            .inputs
            .iter()
            .map(|h| unhex(h))
            .collect::<Result<_, _>>()?;
        let mut config = DispatchConfig::new();
        config.grid = file.grid;
        Ok(Regression {
            note: file.note,
            case: GeneratedCase {
                program,
                inputs,
                config,
            },
            recipe: file.recipe,
        })
    }

    /// Writes the case into `dir` (created if missing) under a name derived from the program's
    /// fingerprint, and returns the path.
    ///
    /// # Errors
    ///
    /// The I/O error of creating the directory or writing the file.
    pub fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let name = format!("fuzz-{}.json", self.case.program.fingerprint());
        let path = dir.join(name);
        std::fs::write(&path, self.to_json() + "\n")?;
        Ok(path)
    }

    /// Every `*.json` case in `dir`, sorted by path; a missing directory has none.
    ///
    /// # Errors
    ///
    /// A message naming the first file that cannot be read or parsed.
    pub fn load_dir(dir: &Path) -> Result<Vec<(PathBuf, Regression)>, String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(Vec::new());
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    format!(
                        "{}: {e}. Fix: check the file's permissions.",
                        path.display()
                    )
                })?;
                let case =
                    Regression::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                Ok((path, case))
            })
            .collect()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let bad = || {
        format!(
            "input `{text}` is not hex bytes (an even number of the digits 0-9 and a-f). Fix: write two hex digits per byte."
        )
    };
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return Err(bad());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| bad()))
        .collect()
}
