//! The `sharded` workload: `vyre::Sharded` over several devices against one device, in the same
//! run: a queue of `--shard-items` items through `dispatch_batch`, and an elementwise add of
//! `--shard-bytes` per buffer through `dispatch`. The vyre column is the sharded backend, the
//! baseline column the suite's one wgpu backend. Both sides' outputs are checked against the CPU.

use vyre_driver::{DispatchConfig, VyreBackend};
use vyre_driver_wgpu::{AdapterOptions, WgpuBackend};
use vyre_foundation::ir::{BufferDecl, DataType, Expr, Node, Program};

use super::{RowBase, Suite};
use crate::gpu::{BenchResult, WORKGROUP};
use crate::measure;
use crate::report::{Measure, Stat};
use crate::workloads::{self, Elem, MIB};

/// Words per queue item.
const ITEM_WORDS: u64 = 64;

impl Suite<'_> {
    pub(super) fn sharded(&mut self) -> BenchResult<()> {
        let Some(one) = self.vyre else {
            self.notes
                .push("sharded skipped: no vyre backend for the one-device side".into());
            return Ok(());
        };
        let (members, how) = members(self.options.devices)?;
        let names: Vec<String> = members
            .iter()
            .map(|m| m.capabilities().device_name)
            .collect();
        let count = members.len();
        let sharded = vyre::Sharded::new(members).map_err(|e| e.to_string())?;
        self.notes.push(format!(
            "sharded: {count} devices ({how}): {}",
            names.join("; ")
        ));
        self.sharded_queue(&sharded, one, count)?;
        self.sharded_add(&sharded, one, count)?;
        for (k, m) in sharded.stats().iter().enumerate() {
            self.notes.push(format!(
                "sharded member {k} ({}): {} items, {} ranges, {} whole dispatches, {} re-runs, alive {}",
                m.name, m.items, m.pieces, m.dispatches, m.reruns, m.alive
            ));
        }
        Ok(())
    }

    fn sharded_queue(
        &mut self,
        sharded: &vyre::Sharded,
        one: &dyn VyreBackend,
        count: usize,
    ) -> BenchResult<()> {
        let items: Vec<Vec<Vec<u8>>> = (0..self.options.shard_items as u64)
            .map(|k| vec![workloads::input_bytes(Elem::U32, ITEM_WORDS, k)])
            .collect();
        let program = queue_program();
        let config = DispatchConfig::default();
        let check = |what: &str, outputs: &[Vec<Vec<u8>>]| -> BenchResult<()> {
            if outputs.len() != items.len() {
                return Err(format!(
                    "{what}: {} results for {} items. Fix: the backend lost or added items.",
                    outputs.len(),
                    items.len()
                ));
            }
            let step = (items.len() / 16).max(1);
            for k in (0..items.len()).step_by(step).chain([items.len() - 1]) {
                let input = &items[k][0];
                let out = outputs[k].first().map_or(&[][..], Vec::as_slice);
                workloads::verify_sample(what, out, ITEM_WORDS as usize, 8, |i| {
                    queue_reference(workloads::word_at(input, i), i)
                })?;
            }
            Ok(())
        };
        let run = |backend: &dyn VyreBackend, what: &str| -> BenchResult<()> {
            let outputs = backend
                .dispatch_batch(&program, &items, &config)
                .map_err(|e| format!("{what}: {e}"))?;
            check(what, &outputs)
        };
        let mut sharded_step = || run(sharded, "sharded queue");
        let mut one_step = || run(one, "one-device queue");
        let mut samples =
            measure::interleave(self.reps(), &mut [&mut sharded_step, &mut one_step])?;
        let single = samples.pop().unwrap_or_default();
        let split = samples.pop().unwrap_or_default();
        let base = RowBase {
            workload: "sharded",
            case: format!("queue {} x {ITEM_WORDS} u32, {count} devices", items.len()),
            baseline_name: "1 device",
        };
        let sides = (Some(split.as_slice()), Some(single.as_slice()));
        self.rows
            .push(base.row("end-to-end", Measure::Time, Stat::P50, sides, None));
        self.rows
            .push(base.row("end-to-end", Measure::Time, Stat::P99, sides, None));
        Ok(())
    }

    fn sharded_add(
        &mut self,
        sharded: &vyre::Sharded,
        one: &dyn VyreBackend,
        count: usize,
    ) -> BenchResult<()> {
        let bytes = self.options.shard_bytes;
        let n = bytes / 4;
        let Ok(n32) = u32::try_from(n) else {
            self.notes.push(format!(
                "sharded add skipped: {} MiB per buffer is more u32 than one index reaches",
                bytes / MIB
            ));
            return Ok(());
        };
        let program = workloads::add_program(Elem::U32, n32);
        let inputs = vec![
            workloads::input_bytes(Elem::U32, n, 1),
            workloads::input_bytes(Elem::U32, n, 2),
        ];
        let config = DispatchConfig::default();
        let run = |backend: &dyn VyreBackend, what: &str| -> BenchResult<()> {
            let outputs = backend
                .dispatch(&program, &inputs, &config)
                .map_err(|e| format!("{what}: {e}"))?;
            let out = outputs.first().map_or(&[][..], Vec::as_slice);
            workloads::verify_sample(what, out, n as usize, 64, |i| {
                workloads::add_reference(
                    Elem::U32,
                    workloads::word_at(&inputs[0], i),
                    workloads::word_at(&inputs[1], i),
                )
            })
        };
        let mut sharded_step = || run(sharded, "sharded add");
        let mut one_step = || run(one, "one-device add");
        let reps = self.reps_for(bytes);
        let mut samples = measure::interleave(reps, &mut [&mut sharded_step, &mut one_step])?;
        let single = samples.pop().unwrap_or_default();
        let split = samples.pop().unwrap_or_default();
        let base = RowBase {
            workload: "sharded",
            case: format!("add u32 {} MiB per buffer, {count} devices", bytes / MIB),
            baseline_name: "1 device",
        };
        let sides = (Some(split.as_slice()), Some(single.as_slice()));
        self.rows.push(base.row(
            "end-to-end",
            Measure::Throughput { bytes: bytes * 3 },
            Stat::P50,
            sides,
            None,
        ));
        Ok(())
    }
}

/// The members: `devices` adapters of the host (0: all of them), or, where the host has fewer,
/// that many devices on its one best adapter (so the harness runs on a one-GPU machine too).
fn members(devices: usize) -> BenchResult<(Vec<Box<dyn VyreBackend>>, String)> {
    let all = WgpuBackend::acquire_all().map_err(|e| e.to_string())?;
    let want = if devices == 0 {
        all.len().max(2)
    } else {
        devices
    };
    let (chosen, how) = if all.len() >= want {
        let how = format!("{want} of the host's {} adapters", all.len());
        (all.into_iter().take(want).collect::<Vec<_>>(), how)
    } else {
        drop(all);
        let one = WgpuBackend::acquire_devices(&AdapterOptions::new(), want)
            .map_err(|e| e.to_string())?;
        (one, format!("{want} devices on ONE adapter"))
    };
    let boxed = chosen
        .into_iter()
        .map(|b| Box::new(b) as Box<dyn VyreBackend>)
        .collect();
    Ok((boxed, how))
}

/// Each queue item: `y[i] = x[i] * 3 + i` over its 64 words.
fn queue_program() -> Program {
    Program::wrapped(
        vec![
            BufferDecl::read("x", 0, DataType::U32).with_count(ITEM_WORDS as u32),
            BufferDecl::output("y", 1, DataType::U32).with_count(ITEM_WORDS as u32),
        ],
        [WORKGROUP, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::add(
                Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(3)),
                Expr::gid_x(),
            ),
        )],
    )
}

fn queue_reference(x: u32, i: usize) -> u32 {
    x.wrapping_mul(3).wrapping_add(i as u32)
}
