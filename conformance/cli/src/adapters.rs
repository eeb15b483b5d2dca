//! `vyre-conform list-adapters`: every adapter wgpu sees, what vyre makes of each, and what
//! `vyre::Choice::Auto` takes here and why.

use std::process::ExitCode;

use clap::Args;
use vyre::wgpu::{ADAPTER_ENV, AdapterEntry, AdapterOptions, WORKAROUNDS_ENV, list_adapters};
use vyre::{BACKEND_ENV_VAR, Choice, select};

/// Options of `list-adapters`.
#[derive(Args, Debug)]
pub(crate) struct ListArgs {
    /// Print the listing as one JSON object on stdout instead of text.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &ListArgs) -> ExitCode {
    let entries = list_adapters(&AdapterOptions::new());
    // The automatic choice itself, so what is printed is what a program calling it would get.
    let auto = match select(Choice::Auto) {
        Ok(picked) => Ok((picked.backend.id().to_string(), picked.reason)),
        Err(e) => Err(e.to_string()),
    };
    if args.json {
        let value = json(&entries, &auto);
        say!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string())
        );
    } else {
        print_text(&entries, &auto);
    }
    ExitCode::SUCCESS
}

fn print_text(entries: &[AdapterEntry], auto: &Result<(String, String), String>) {
    if entries.is_empty() {
        say!("wgpu sees no adapter here (Vulkan, Metal and DX12 were asked).");
    }
    for entry in entries {
        let info = &entry.info;
        say!(
            "{} {} ({:?}, {:?}; driver {} {})\n    {}\n    optional features: {}{}{}\n    driver workarounds: {}",
            if entry.chosen { "*" } else { "-" },
            info.name,
            info.backend,
            info.device_type,
            info.driver,
            info.driver_info,
            entry.reason,
            entry.features,
            subgroup_sizes(entry),
            tile_shapes(entry),
            workarounds(entry)
        );
    }
    for (name, value) in
        [ADAPTER_ENV, BACKEND_ENV_VAR, WORKAROUNDS_ENV].map(|n| (n, std::env::var(n).ok()))
    {
        if let Some(value) = value {
            say!("{name}={value} is set");
        }
    }
    match auto {
        Ok((_, reason)) => say!("Choice::Auto {reason}"),
        Err(e) => say!("Choice::Auto fails here: {e}"),
    }
}

/// The driver workarounds a device on the adapter would lower its modules with, and why.
fn workarounds(entry: &AdapterEntry) -> String {
    match &entry.workarounds {
        Ok(set) if set.is_empty() => "none".to_string(),
        Ok(set) => set.iter().map(|w| w.name()).collect::<Vec<_>>().join(", "),
        Err(e) => format!("cannot be chosen: {e}"),
    }
}

/// The subgroup size range, when the adapter has subgroups.
fn subgroup_sizes(entry: &AdapterEntry) -> String {
    if entry.features.contains(vyre::ir::Features::SUBGROUPS) {
        format!(
            " (subgroup sizes {}-{})",
            entry.info.subgroup_min_size, entry.info.subgroup_max_size
        )
    } else {
        String::new()
    }
}

/// The tile shapes, when the adapter has matrix tiles.
fn tile_shapes(entry: &AdapterEntry) -> String {
    if entry.matrix_tiles.is_empty() {
        return String::new();
    }
    let shapes: Vec<String> = entry.matrix_tiles.iter().map(ToString::to_string).collect();
    format!(" (tiles {})", shapes.join(", "))
}

fn json(entries: &[AdapterEntry], auto: &Result<(String, String), String>) -> serde_json::Value {
    let adapters: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "name": e.info.name,
                "backend": format!("{:?}", e.info.backend),
                "device_type": format!("{:?}", e.info.device_type),
                "driver": e.info.driver,
                "driver_info": e.info.driver_info,
                "chosen": e.chosen,
                "excluded": e.excluded,
                "reason": e.reason,
                "features": e.features.names().collect::<Vec<_>>(),
                "subgroup_sizes": [e.info.subgroup_min_size, e.info.subgroup_max_size],
                "matrix_tiles": e.matrix_tiles.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "workarounds": match &e.workarounds {
                    Ok(set) => serde_json::json!(set.names()),
                    Err(error) => serde_json::json!({ "error": error }),
                },
            })
        })
        .collect();
    let auto = match auto {
        Ok((backend, reason)) => serde_json::json!({ "backend": backend, "reason": reason }),
        Err(e) => serde_json::json!({ "error": e }),
    };
    serde_json::json!({
        "adapters": adapters,
        ADAPTER_ENV: std::env::var(ADAPTER_ENV).ok(),
        BACKEND_ENV_VAR: std::env::var(BACKEND_ENV_VAR).ok(),
        WORKAROUNDS_ENV: std::env::var(WORKAROUNDS_ENV).ok(),
        "auto": auto,
    })
}
