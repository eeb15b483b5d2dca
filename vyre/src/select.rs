//! Picking a backend: by name, or automatically (a GPU, then a CPU Vulkan driver, then the reference
//! interpreter), with the `VYRE_BACKEND` environment variable overriding the automatic choice.
//!
//! `VYRE_WGPU_ADAPTER=<substring>` is read by the wgpu backend itself when it picks an adapter, so it
//! applies to both `Auto` and `Named("wgpu")`.
//!
//! ```
//! use vyre::{Choice, select};
//!
//! let picked = select(Choice::Named("reference")).expect("the reference backend always exists");
//! assert_eq!(picked.backend.id(), "reference");
//! eprintln!("{}", picked.reason);
//! ```

use vyre_driver::{BackendError, VyreBackend};

use vyre_reference::ReferenceBackend;

/// The environment variable that overrides [`Choice::Auto`] with a backend name.
pub const BACKEND_ENV_VAR: &str = "VYRE_BACKEND";

/// The names [`Choice::Named`] accepts.
pub const BACKEND_NAMES: [&str; 2] = ["reference", "wgpu"];

/// Which backend to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice<'a> {
    /// The best available: a GPU adapter, then a CPU Vulkan adapter, then the reference backend.
    /// `VYRE_BACKEND=<name>` in the environment picks that backend instead.
    Auto,
    /// The backend with this name (see [`BACKEND_NAMES`]).
    Named(&'a str),
}

/// A chosen backend and why it was chosen.
pub struct Selected {
    /// The backend.
    pub backend: Box<dyn VyreBackend>,
    /// A sentence saying which backend (and device) was taken and why.
    pub reason: String,
}

impl std::fmt::Debug for Selected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selected")
            .field("backend", &self.backend.id())
            .field("reason", &self.reason)
            .finish()
    }
}

/// Picks a backend as `choice` says.
///
/// # Errors
///
/// [`BackendError::Unsupported`] for an unknown name (from `choice` or `VYRE_BACKEND`), or for
/// `wgpu` when this build lacks the `wgpu` feature; the error of acquiring a device when `wgpu` is
/// named and no adapter exists. `Auto` without `VYRE_BACKEND` never fails: the reference is always there.
pub fn select(choice: Choice<'_>) -> Result<Selected, BackendError> {
    let env = std::env::var(BACKEND_ENV_VAR).ok();
    select_with_env(choice, env.as_deref())
}

/// Picks a backend as `choice` says and returns just the backend (see [`select`]).
///
/// # Errors
///
/// As [`select`].
pub fn backend(choice: Choice<'_>) -> Result<Box<dyn VyreBackend>, BackendError> {
    select(choice).map(|s| s.backend)
}

/// [`select`] with the value of `VYRE_BACKEND` passed in, so tests need not touch the environment.
fn select_with_env(choice: Choice<'_>, env: Option<&str>) -> Result<Selected, BackendError> {
    match (choice, env.map(str::trim)) {
        (Choice::Named(name), _) => named(name, "it was asked for by name"),
        (Choice::Auto, Some(name)) if !name.is_empty() => {
            named(name, &format!("{BACKEND_ENV_VAR}={name} is set"))
        }
        (Choice::Auto, _) => Ok(automatic()),
    }
}

fn named(name: &str, why: &str) -> Result<Selected, BackendError> {
    match name {
        "reference" => Ok(reference(format!(
            "took the reference backend because {why}"
        ))),
        "wgpu" => wgpu_named(why),
        other => Err(BackendError::unsupported(format!(
            "there is no backend called `{other}`. Fix: use one of {}, or leave the choice to `Choice::Auto` (and unset {BACKEND_ENV_VAR}).",
            BACKEND_NAMES.map(|n| format!("`{n}`")).join(", ")
        ))),
    }
}

fn reference(reason: String) -> Selected {
    Selected {
        backend: Box::new(ReferenceBackend::new()),
        reason,
    }
}

/// A GPU adapter, else a CPU Vulkan adapter (both through `WgpuBackend::acquire`, which prefers
/// discrete over integrated over CPU adapters), else the reference interpreter.
fn automatic() -> Selected {
    match acquire_wgpu() {
        Ok((backend, device)) => Selected {
            reason: format!(
                "took wgpu on {device}, the best adapter found{}",
                caveat(&device)
            ),
            backend,
        },
        Err(why) => reference(format!(
            "took the reference backend (a CPU interpreter) because no wgpu adapter is usable: {why}"
        )),
    }
}

/// What a user of `device` must know that its name does not say: Mesa's llvmpipe ends long loops
/// without an error.
fn caveat(device: &str) -> &'static str {
    if device.contains("llvmpipe") {
        "; note: llvmpipe (lavapipe) silently ends every loop after 65 535 iterations per group of invocations (SEMANTICS.md section 2), where a GPU runs them all"
    } else {
        ""
    }
}

/// `wgpu`, asked for by name: its absence is an error, not a fallback.
#[cfg(feature = "wgpu")]
fn wgpu_named(why: &str) -> Result<Selected, BackendError> {
    let backend = vyre_driver_wgpu::WgpuBackend::acquire()?;
    let device = backend.adapter_name();
    Ok(Selected {
        reason: format!("took wgpu on {device} ({why}){}", caveat(&device)),
        backend: Box::new(backend),
    })
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_named(_why: &str) -> Result<Selected, BackendError> {
    Err(BackendError::unsupported(
        "this build of vyre was compiled without the `wgpu` feature. Fix: enable vyre's `wgpu` feature (on by default), or use `reference`.",
    ))
}

/// The wgpu backend and a description of its device, or why there is none.
#[cfg(feature = "wgpu")]
fn acquire_wgpu() -> Result<(Box<dyn VyreBackend>, String), String> {
    match vyre_driver_wgpu::WgpuBackend::acquire() {
        Ok(backend) => {
            let device = backend.adapter_name();
            Ok((Box::new(backend), device))
        }
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(not(feature = "wgpu"))]
fn acquire_wgpu() -> Result<(Box<dyn VyreBackend>, String), String> {
    Err("this build has no `wgpu` feature".to_string())
}

#[cfg(test)]
mod tests {
    use super::{Choice, select_with_env};

    #[test]
    fn named_reference_is_the_reference() {
        let picked = select_with_env(Choice::Named("reference"), None).unwrap();
        assert_eq!(picked.backend.id(), "reference");
        assert!(picked.reason.contains("by name"), "{}", picked.reason);
    }

    #[test]
    fn env_var_overrides_auto_but_not_a_name() {
        let picked = select_with_env(Choice::Auto, Some("reference")).unwrap();
        assert_eq!(picked.backend.id(), "reference");
        assert!(
            picked.reason.contains("VYRE_BACKEND=reference"),
            "{}",
            picked.reason
        );
        let err = select_with_env(Choice::Named("nope"), Some("reference")).unwrap_err();
        assert_eq!(err.kind_name(), "Unsupported");
    }

    #[test]
    fn unknown_names_are_unsupported_with_a_fix_listing_the_names() {
        for (choice, env) in [(Choice::Named("cuda"), None), (Choice::Auto, Some("metal"))] {
            let err = select_with_env(choice, env).unwrap_err();
            let text = err.to_string();
            assert_eq!(err.kind_name(), "Unsupported");
            assert!(
                text.contains("Fix:") && text.contains("`reference`") && text.contains("`wgpu`"),
                "{text}"
            );
        }
    }

    #[cfg(not(feature = "wgpu"))]
    #[test]
    fn named_wgpu_without_the_feature_is_unsupported_with_a_fix() {
        let err = select_with_env(Choice::Named("wgpu"), None).unwrap_err();
        assert_eq!(err.kind_name(), "Unsupported");
        let text = err.to_string();
        assert!(
            text.contains("`wgpu` feature") && text.contains("Fix:"),
            "{text}"
        );
        let picked = select_with_env(Choice::Auto, None).unwrap();
        assert_eq!(picked.backend.id(), "reference");
    }

    #[test]
    fn auto_always_finds_a_backend_and_says_why() {
        let picked = select_with_env(Choice::Auto, None).unwrap();
        assert!(["reference", "wgpu"].contains(&picked.backend.id()));
        assert!(picked.reason.starts_with("took "), "{}", picked.reason);
        let blank = select_with_env(Choice::Auto, Some("  ")).unwrap();
        assert!(!blank.reason.contains("VYRE_BACKEND"), "{}", blank.reason);
    }
}
