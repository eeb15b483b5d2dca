//! The cache file's format: vyre's header, then the driver's blob exactly as `get_data()` gave it.
//!
//! ```text
//! offset  size  field
//! 0       8     magic, b"VYREPLC\0"
//! 8       4     header layout version (u32 LE, `LAYOUT`)
//! 12      4     lowering version (u32 LE, `lower::LOWERING_VERSION`)
//! 16      ...   nine strings, each a u16 LE length then UTF-8 bytes: the vyre, wgpu and naga versions,
//!               the adapter key (`wgpu::util::pipeline_cache_key`), the driver, the driver info,
//!               the driver workarounds in force (`Workarounds`' text, e.g. `none`), the IR
//!               passes in force (`Pipeline::key`, e.g. `fold@1,dce@1`; empty when off), and
//!               whether modules are trusted (`on` or `off`, see `trusted`)
//! h       8     blob length (u64 LE)
//! h+8     8     XXH3-64 of the blob (u64 LE)
//! h+16    n     the blob
//! ```
//!
//! Everything before the blob length is the *key*: a file is trusted only when its first bytes equal
//! the key this process would write, byte for byte, its length field equals the bytes that follow,
//! and the checksum of those bytes verifies. Anything else is rejected with the reason.

use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"VYREPLC\0";

/// The version of this layout; bumped when a field is added, removed or reordered.
const LAYOUT: u32 = 4;

/// The wgpu this crate is built against (`tests/disk_cache.rs` checks it against `Cargo.lock`).
pub(crate) const WGPU_VERSION: &str = "30.0.2";

/// The naga this crate is built against (checked as [`WGPU_VERSION`] is).
pub(crate) const NAGA_VERSION: &str = "30.0.2";

/// What a cache file is for: everything that must match before its blob may reach the driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CacheKey {
    pub(crate) lowering: u32,
    pub(crate) vyre: String,
    pub(crate) wgpu: String,
    pub(crate) naga: String,
    pub(crate) adapter: String,
    pub(crate) driver: String,
    pub(crate) driver_info: String,
    /// The driver workarounds the modules were lowered with: a pipeline of another set is another
    /// module.
    pub(crate) workarounds: String,
    /// The IR passes the programs went through (`Pipeline::key`): other passes, other modules.
    pub(crate) passes: String,
    /// `on` when the modules were compiled without wgpu's bounds checks (`trusted`), else `off`:
    /// other checks, other shader code.
    pub(crate) trusted_modules: String,
}

impl CacheKey {
    /// The key of this build of vyre on the adapter `info`, whose `pipeline_cache_key` is `adapter`.
    pub(crate) fn new(
        adapter: String,
        info: &wgpu::AdapterInfo,
        lowering: u32,
        workarounds: crate::workarounds::Workarounds,
        passes: &str,
        trusted_modules: bool,
    ) -> Self {
        Self {
            lowering,
            vyre: env!("CARGO_PKG_VERSION").to_string(),
            wgpu: WGPU_VERSION.to_string(),
            naga: NAGA_VERSION.to_string(),
            adapter,
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            workarounds: workarounds.to_string(),
            passes: passes.to_string(),
            trusted_modules: if trusted_modules { "on" } else { "off" }.to_string(),
        }
    }

    /// The header bytes up to (not including) the blob length.
    fn prefix(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&LAYOUT.to_le_bytes());
        out.extend_from_slice(&self.lowering.to_le_bytes());
        for field in [
            &self.vyre,
            &self.wgpu,
            &self.naga,
            &self.adapter,
            &self.driver,
            &self.driver_info,
            &self.workarounds,
            &self.passes,
            &self.trusted_modules,
        ] {
            // A field longer than u16 (no real driver string is) is cut: the key stays deterministic.
            let bytes = &field.as_bytes()[..field.len().min(usize::from(u16::MAX))];
            let len = u16::try_from(bytes.len()).unwrap_or(u16::MAX);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(bytes);
        }
        out
    }
}

/// The whole file for `blob` under `key`.
pub(crate) fn encode(key: &CacheKey, blob: &[u8]) -> Vec<u8> {
    let mut out = key.prefix();
    out.reserve(16 + blob.len());
    out.extend_from_slice(&(blob.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxh3_64(blob).to_le_bytes());
    out.extend_from_slice(blob);
    out
}

/// The blob of `file` when it was written under exactly `key` and is whole; otherwise why not.
pub(crate) fn decode<'f>(key: &CacheKey, file: &'f [u8]) -> Result<&'f [u8], String> {
    if file.is_empty() {
        return Err("the file is empty".to_string());
    }
    if !file.starts_with(MAGIC) {
        return Err("the file is not a vyre pipeline cache (wrong magic)".to_string());
    }
    let prefix = key.prefix();
    let Some(rest) = file.strip_prefix(prefix.as_slice()) else {
        return Err(if file.len() < prefix.len() {
            "the header is truncated or was written for another adapter, driver, set of driver workarounds, IR passes or module checks, or version of vyre, wgpu, naga or the lowering"
        } else {
            "the header was written for another adapter, driver, set of driver workarounds, IR passes or module checks, or version of vyre, wgpu, naga or the lowering"
        }
        .to_string());
    };
    let (Some(length), Some(checksum)) = (word(rest, 0), word(rest, 8)) else {
        return Err("the header is truncated (no blob length and checksum)".to_string());
    };
    let blob = &rest[16..];
    if length != blob.len() as u64 {
        return Err(format!(
            "the header announces a blob of {length} bytes but {} follow (truncated or extended)",
            blob.len()
        ));
    }
    if xxh3_64(blob) != checksum {
        return Err("the blob's checksum does not match (the file is corrupted)".to_string());
    }
    Ok(blob)
}

/// The u64 LE at `at` in `bytes`, if there are 8 bytes there.
fn word(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

#[cfg(test)]
mod tests {
    use super::{CacheKey, decode, encode};

    fn key() -> CacheKey {
        CacheKey {
            lowering: 3,
            vyre: "0.1.0".into(),
            wgpu: "30.0.2".into(),
            naga: "30.0.2".into(),
            adapter: "wgpu_pipeline_cache_vulkan_65541_0".into(),
            driver: "llvmpipe".into(),
            driver_info: "Mesa 22.3.6".into(),
            workarounds: "none".into(),
            passes: String::new(),
            trusted_modules: "on".into(),
        }
    }

    /// The version of `package` that the workspace's `Cargo.lock` pins.
    fn locked_version(package: &str) -> Option<String> {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"))
            .expect("the workspace's Cargo.lock");
        let entry = format!("name = \"{package}\"\nversion = \"");
        let at = lock.find(&entry)? + entry.len();
        lock[at..].split('"').next().map(str::to_string)
    }

    #[test]
    fn the_key_names_the_locked_wgpu_and_naga() {
        for package in ["wgpu", "wgpu-core", "wgpu-hal"] {
            assert_eq!(
                locked_version(package).as_deref(),
                Some(super::WGPU_VERSION),
                "{package}: update WGPU_VERSION in src/disk/file.rs"
            );
        }
        assert_eq!(
            locked_version("naga").as_deref(),
            Some(super::NAGA_VERSION),
            "update NAGA_VERSION in src/disk/file.rs"
        );
    }

    #[test]
    fn a_file_reads_back_its_blob_under_the_same_key() {
        let blob: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&key(), &encode(&key(), &blob)), Ok(&blob[..]));
        assert_eq!(decode(&key(), &encode(&key(), &[])), Ok(&[][..]));
    }

    #[test]
    fn every_key_field_must_match() {
        let file = encode(&key(), b"blob");
        let others = [
            CacheKey {
                lowering: 4,
                ..key()
            },
            CacheKey {
                vyre: "0.1.1".into(),
                ..key()
            },
            CacheKey {
                wgpu: "30.0.3".into(),
                ..key()
            },
            CacheKey {
                naga: "30.1.0".into(),
                ..key()
            },
            CacheKey {
                adapter: "wgpu_pipeline_cache_vulkan_4318_9001".into(),
                ..key()
            },
            CacheKey {
                driver: "NVIDIA".into(),
                ..key()
            },
            CacheKey {
                driver_info: "Mesa 23.0".into(),
                ..key()
            },
            CacheKey {
                workarounds: "int_min_max".into(),
                ..key()
            },
            CacheKey {
                passes: "fold@1".into(),
                ..key()
            },
            CacheKey {
                trusted_modules: "off".into(),
                ..key()
            },
        ];
        for other in others {
            let error = decode(&other, &file).unwrap_err();
            assert!(error.contains("another adapter"), "{other:?}: {error}");
        }
    }

    #[test]
    fn truncation_corruption_and_garbage_are_rejected_with_a_reason() {
        let file = encode(&key(), &[7; 100]);
        assert!(decode(&key(), &[]).unwrap_err().contains("empty"));
        assert!(
            decode(&key(), b"garbage!garbage!")
                .unwrap_err()
                .contains("magic")
        );
        for cut in [4, 20, file.len() - 116, file.len() - 110, file.len() - 1] {
            assert!(decode(&key(), &file[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = file.clone();
        longer.push(0);
        assert!(decode(&key(), &longer).unwrap_err().contains("extended"));
        for at in file.len() - 100..file.len() {
            let mut flipped = file.clone();
            flipped[at] ^= 0x10;
            assert!(
                decode(&key(), &flipped).unwrap_err().contains("checksum"),
                "{at}"
            );
        }
    }
}
