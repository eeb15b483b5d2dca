//! The disk pipeline cache: one `wgpu::PipelineCache` per device, loaded from and saved to a file per
//! adapter, so that a second process finds the driver's compiled pipelines instead of compiling them
//! again.
//!
//! Only Vulkan adapters with `Features::PIPELINE_CACHE` have one. The file (`file.rs`) is vyre's header
//! (a magic, the key: vyre, wgpu, naga and lowering versions, adapter and driver, the driver
//! workarounds, IR passes and module checks in force; the blob's length and
//! XXH3-64 checksum) followed by the blob `get_data()` returned. A file is trusted, and its blob handed
//! to the driver, only when its header matches this build and adapter exactly and its checksum
//! verifies; any other file, an unreadable one, or an unwritable directory is ignored with a logged
//! warning (`log::warn!`), and pipelines compile from scratch.
//!
//! When it saves: after a compile, when pipelines were compiled since the last save and the last
//! save (or the device's opening) was at least [`SAVE_INTERVAL`] ago; and when the device is dropped
//! (the backend and everything holding it gone) or [`crate::WgpuBackend::save_pipeline_cache`] is
//! called, whenever pipelines were compiled since the last save. A cache-hit dispatch never saves:
//! only a compile (already milliseconds) may. So a process that compiles N pipelines and drops its
//! backend leaves all N on disk; one that exits without dropping it (`std::process::exit`, a backend
//! in a `static`) keeps what the last periodic save wrote.

mod dir;
mod file;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

pub use dir::{CACHE_DIR_ENV, PipelineCacheDir};
use file::CacheKey;

use crate::lower::LOWERING_VERSION;
use crate::workarounds::Workarounds;

/// The least time between two saves triggered by compiles (saves on drop are not limited).
pub(crate) const SAVE_INTERVAL: Duration = Duration::from_secs(2);

/// How a device's disk pipeline cache started.
///
/// ```
/// use vyre_driver_wgpu::{DiskCacheLoad, WgpuBackend};
///
/// let Ok(backend) = WgpuBackend::acquire() else { return };
/// let status = backend.disk_cache();
/// match &status.load {
///     DiskCacheLoad::Loaded { bytes } => println!("warm start: {bytes} bytes of pipelines"),
///     DiskCacheLoad::NoFile => println!("cold start; the cache will be saved"),
///     DiskCacheLoad::Ignored(why) => println!("cache file ignored: {why}"),
///     DiskCacheLoad::Off(why) | DiskCacheLoad::Unavailable(why) => println!("no disk cache: {why}"),
///     _ => {}
/// }
/// // A cache file exists only for the cases that have a disk cache.
/// let has_cache = !matches!(status.load, DiskCacheLoad::Off(_) | DiskCacheLoad::Unavailable(_));
/// assert_eq!(status.path.is_some(), has_cache);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiskCacheLoad {
    /// No disk cache, as configured (`VYRE_CACHE_DIR=off` or [`PipelineCacheDir::Off`]); says which.
    Off(String),
    /// No disk cache: the device cannot keep one (not Vulkan, no `PIPELINE_CACHE` feature) or there is
    /// no cache directory; says why.
    Unavailable(String),
    /// There was no file yet: the cache started empty and will be saved.
    NoFile,
    /// The file matched: this many bytes of the driver's data were handed to it.
    Loaded {
        /// The size of the driver's blob.
        bytes: u64,
    },
    /// The file was ignored (a warning was logged) and the cache started empty: why.
    Ignored(String),
}

/// What a backend's disk pipeline cache did ([`crate::WgpuBackend::disk_cache`]).
///
/// ```
/// use vyre_driver::{DispatchConfig, VyreBackend};
/// use vyre_driver_wgpu::{AdapterOptions, DiskCacheLoad, PipelineCacheDir, WgpuBackend};
/// use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};
///
/// let dir = std::env::temp_dir().join(format!("vyre-doc-status-{}", std::process::id()));
/// let _ = std::fs::remove_dir_all(&dir);
/// let options = AdapterOptions::new().with_pipeline_cache(PipelineCacheDir::At(dir.clone()));
/// let program = Program::new(
///     vec![BufferDecl::output("o", 0, DataType::U32).with_count(4)],
///     [64, 1, 1],
///     vec![Node::store("o", Expr::gid_x(), Expr::u32(0xcafe))],
/// );
/// let Ok(first) = WgpuBackend::acquire_with(&options) else { return Ok(()) };
/// if first.disk_cache().load != DiskCacheLoad::NoFile {
///     return Ok(()); // no disk cache on this adapter (not Vulkan)
/// }
/// first.dispatch(&program, &[], &DispatchConfig::default())?;
/// drop(first); // saves the compiled pipeline
/// // A second backend (or process) on the same adapter starts from the file.
/// let Ok(second) = WgpuBackend::acquire_with(&options) else { return Ok(()) };
/// let status = second.disk_cache();
/// assert!(matches!(status.load, DiskCacheLoad::Loaded { bytes } if bytes > 0), "{status:?}");
/// assert_eq!((status.saves, status.failed_saves), (0, 0));
/// drop(second);
/// let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), vyre_driver::BackendError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiskCacheStatus {
    /// The cache file, when there is a disk cache.
    pub path: Option<PathBuf>,
    /// How it started.
    pub load: DiskCacheLoad,
    /// Files written.
    pub saves: u64,
    /// Saves that failed (each logged as a warning).
    pub failed_saves: u64,
}

impl DiskCacheStatus {
    pub(crate) fn unavailable(why: &str) -> Self {
        Self {
            path: None,
            load: DiskCacheLoad::Unavailable(why.to_string()),
            saves: 0,
            failed_saves: 0,
        }
    }
}

/// One device's pipeline cache and its file.
pub(crate) struct DiskCache {
    cache: Option<wgpu::PipelineCache>,
    path: Option<PathBuf>,
    key: Option<CacheKey>,
    load: DiskCacheLoad,
    /// Pipelines compiled since the last save.
    pending: AtomicU64,
    saving: Mutex<Saving>,
}

struct Saving {
    last: Instant,
    saves: u64,
    failures: u64,
}

impl DiskCache {
    fn without(load: DiskCacheLoad) -> Self {
        Self {
            cache: None,
            path: None,
            key: None,
            load,
            pending: AtomicU64::new(0),
            saving: Mutex::new(Saving {
                last: Instant::now(),
                saves: 0,
                failures: 0,
            }),
        }
    }

    /// The cache of a new `device` on the adapter `info`, loaded from its file in `choice`'s
    /// directory when that file is trustworthy.
    pub(crate) fn open(
        device: &wgpu::Device,
        info: &wgpu::AdapterInfo,
        choice: &PipelineCacheDir,
        workarounds: Workarounds,
        passes: &str,
        trusted_modules: bool,
    ) -> Self {
        let dir = match dir::resolve(choice, |name| std::env::var_os(name)) {
            Ok(dir) => dir,
            Err(dir::NoDir::Off(why)) => return Self::without(DiskCacheLoad::Off(why)),
            Err(dir::NoDir::NotFound(why)) => {
                return Self::without(DiskCacheLoad::Unavailable(why));
            }
        };
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return Self::without(DiskCacheLoad::Unavailable(
                "the device has no `PIPELINE_CACHE` feature (only Vulkan has it)".to_string(),
            ));
        }
        let Some(name) = wgpu::util::pipeline_cache_key(info) else {
            return Self::without(DiskCacheLoad::Unavailable(format!(
                "wgpu keeps no pipeline cache for {:?} adapters",
                info.backend
            )));
        };
        let path = dir.join(format!("{name}.vyre-cache"));
        let key = CacheKey::new(
            name,
            info,
            LOWERING_VERSION,
            workarounds,
            passes,
            trusted_modules,
        );
        let ignored = |why: String| {
            log::warn!(
                "vyre: ignoring the pipeline cache file {}: {why}; pipelines compile from scratch and the file will be rewritten",
                path.display()
            );
            DiskCacheLoad::Ignored(why)
        };
        let (blob, mut load) = match dir::read(&path) {
            Ok(None) => (None, DiskCacheLoad::NoFile),
            Ok(Some(bytes)) => match file::decode(&key, &bytes) {
                Ok(blob) => (
                    Some(blob.to_vec()),
                    DiskCacheLoad::Loaded {
                        bytes: blob.len() as u64,
                    },
                ),
                Err(why) => (None, ignored(why)),
            },
            Err(why) => (None, ignored(why)),
        };
        let mut cache = create(device, blob.as_deref());
        if let (Err(why), Some(_)) = (&cache, &blob) {
            load = ignored(format!("the driver refused its data ({why})"));
            cache = create(device, None);
        }
        match cache {
            Ok(cache) => Self {
                cache: Some(cache),
                path: Some(path),
                key: Some(key),
                ..Self::without(load)
            },
            Err(why) => Self::without(DiskCacheLoad::Unavailable(format!(
                "the device could not create a pipeline cache ({why})"
            ))),
        }
    }

    /// The cache every compute pipeline of this device is created with.
    pub(crate) fn pipeline_cache(&self) -> Option<&wgpu::PipelineCache> {
        self.cache.as_ref()
    }

    /// Notes a compiled pipeline, and saves when the last save is [`SAVE_INTERVAL`] old (and no
    /// other thread is saving).
    pub(crate) fn compiled(&self) {
        if self.cache.is_some() {
            self.pending.fetch_add(1, Ordering::Relaxed);
            self.save(false);
        }
    }

    /// Writes the file when pipelines were compiled since the last save; `now` ignores the
    /// interval and waits for a save in progress. True when a file was written.
    pub(crate) fn save(&self, now: bool) -> bool {
        let (Some(cache), Some(path), Some(key)) = (&self.cache, &self.path, &self.key) else {
            return false;
        };
        let mut saving = if now {
            self.saving.lock().unwrap_or_else(PoisonError::into_inner)
        } else {
            match self.saving.try_lock() {
                Ok(guard) => guard,
                Err(_) => return false,
            }
        };
        if self.pending.load(Ordering::Relaxed) == 0
            || (!now && saving.last.elapsed() < SAVE_INTERVAL)
        {
            return false;
        }
        // Taken before the data, so that a pipeline compiled while this save runs stays pending.
        let pending = self.pending.swap(0, Ordering::Relaxed);
        saving.last = Instant::now();
        let written = match cache.get_data() {
            // A lost device has no data; nothing to keep.
            None => return false,
            Some(blob) if blob.len() as u64 > dir::MAX_FILE_BYTES => Err(format!(
                "the driver's cache holds {} bytes, more than the {} a cache file may",
                blob.len(),
                dir::MAX_FILE_BYTES
            )),
            Some(blob) => dir::write_atomically(path, &file::encode(key, &blob)),
        };
        match written {
            Ok(()) => {
                saving.saves += 1;
                true
            }
            Err(why) => {
                log::warn!(
                    "vyre: the pipeline cache was not saved: {why}; the next process compiles its pipelines again. Fix: make the directory writable, or choose another with {CACHE_DIR_ENV}."
                );
                self.pending.fetch_add(pending, Ordering::Relaxed);
                saving.failures += 1;
                false
            }
        }
    }

    pub(crate) fn status(&self) -> DiskCacheStatus {
        let saving = self.saving.lock().unwrap_or_else(PoisonError::into_inner);
        DiskCacheStatus {
            path: self.path.clone(),
            load: self.load.clone(),
            saves: saving.saves,
            failed_saves: saving.failures,
        }
    }
}

/// A pipeline cache on `device`, seeded with `data`; `Err` when wgpu reports an error creating it.
fn create(device: &wgpu::Device, data: Option<&[u8]>) -> Result<wgpu::PipelineCache, String> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let desc = wgpu::PipelineCacheDescriptor {
        label: Some("vyre"),
        data,
        fallback: true,
    };
    #[allow(unsafe_code)]
    // SAFETY: wgpu requires `data` to come from `PipelineCache::get_data` of a cache of an adapter with
    // the same `pipeline_cache_key`. `open` passes only the blob of a file whose header equals, byte
    // for byte, the header this process writes around `get_data()` for this adapter (same
    // `pipeline_cache_key`, driver, and vyre, wgpu, naga and lowering versions) and whose XXH3
    // checksum of the blob verifies, so the blob is what `get_data()` returned for this adapter.
    // (wgpu then checks its own header in the blob, and `fallback: true` makes a stale one an empty
    // cache.) `None` needs no guarantee.
    let cache = unsafe { device.create_pipeline_cache(&desc) };
    match pollster::block_on(scope.pop()) {
        None => Ok(cache),
        Some(e) => Err(e.to_string()),
    }
}
