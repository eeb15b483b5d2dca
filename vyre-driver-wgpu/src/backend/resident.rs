//! `WgpuBackend`'s resident buffers: creating, writing and reading `DeviceBuffer`s and running
//! sequences over them (the launches themselves are in `launch::resident`).

use std::ops::Range;
use std::time::Duration;

use std::sync::Arc;

use vyre_driver::{
    BackendError, DeviceBuffer, DispatchConfig, DispatchPlan, PreparedStep, Step, VyreBackend,
};
use vyre_foundation::ir::BufferAccess;

use super::{WgpuBackend, form, split};
use crate::device::DeviceState;
use crate::known::Known;
use crate::launch::{self, Bound, InFlight, ResidentLaunch, Settling, WgpuBuffer, binding_bytes};
use crate::lower;

impl WgpuBackend {
    /// The wgpu side of `buffer`, checked to be this backend's and to live on the current device.
    fn resident<'b>(
        &self,
        buffer: &'b DeviceBuffer,
        state: &DeviceState,
    ) -> Result<&'b WgpuBuffer, BackendError> {
        let held = buffer.storage_of::<WgpuBuffer>(self.shared.owner, "wgpu")?;
        if held.generation != state.generation || state.is_lost() {
            let backend = if state.owned {
                "the backend itself has recovered, or recovers on the next call"
            } else {
                "on a new backend: this one's device was the application's, which vyre does not replace; open a new device and call `WgpuBackend::from_device`"
            };
            return Err(BackendError::device_lost(format!(
                "a {}-byte DeviceBuffer was created on a device that has since been lost, and its contents were lost with it. Fix: create the buffer again and write its data anew ({backend}).",
                buffer.len()
            )));
        }
        Ok(held)
    }

    pub(crate) fn create_resident(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.with_recovery(|| {
            let state = self.state()?;
            let buffer = launch::create_resident(self.context(&state), bytes)?;
            let allocated = buffer.size();
            Ok(DeviceBuffer::new(
                self.shared.owner,
                bytes,
                WgpuBuffer {
                    buffer,
                    generation: state.generation,
                    allocated,
                },
            ))
        })
    }

    pub(crate) fn write_resident(
        &self,
        buffer: &DeviceBuffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), BackendError> {
        let state = self.state()?;
        let held = self.resident(buffer, &state)?;
        buffer.check_span(offset, data.len() as u64, "writing")?;
        // Checked above: the end fits a u64.
        let end = offset + data.len() as u64;
        needs(held, wgpu::BufferUsages::COPY_DST, "written")?;
        // wgpu writes whole words: the parts of words at the ends must lie inside the buffer.
        let stop = end.next_multiple_of(4);
        if stop > held.allocated {
            return Err(BackendError::invalid_config(format!(
                "a write ending at byte {end} of an imported {}-byte buffer needs whole words up to byte {stop}. Fix: write whole 4-byte words at the end of an imported buffer.",
                held.allocated
            )));
        }
        launch::write(self.context(&state), &held.buffer, offset, data)
    }

    pub(crate) fn read_resident(
        &self,
        buffer: &DeviceBuffer,
        range: Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        let state = self.state()?;
        let ctx = self.context(&state);
        match self.start_read_resident(&state, buffer, range)? {
            Some(flight) => Ok(flight.wait(ctx)?.pop().unwrap_or_default()),
            None => Ok(Vec::new()),
        }
    }

    /// The checks of a resident read, then the read started on the device `state` (`None` for an
    /// empty range, which reads nothing).
    pub(crate) fn start_read_resident(
        &self,
        state: &Arc<DeviceState>,
        buffer: &DeviceBuffer,
        range: Range<u64>,
    ) -> Result<Option<InFlight>, BackendError> {
        let held = self.resident(buffer, state)?;
        buffer.check_range(&range, "reading")?;
        needs(held, wgpu::BufferUsages::COPY_SRC, "read")?;
        launch::start_read(
            self.context(state),
            &held.buffer,
            held.allocated,
            range,
            None,
        )
    }

    /// The wgpu buffer behind `buffer`, for the application's own passes; `None` for a buffer of
    /// another backend or of a device lost since.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_driver_wgpu::WgpuBackend;
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let buffer = backend.create_buffer(64)?;
    /// let raw = backend.wgpu_buffer(&buffer).expect("a buffer of this backend");
    /// assert!(raw.size() >= 64);
    /// assert!(raw.usage().contains(vyre_driver_wgpu::wgpu::BufferUsages::STORAGE));
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    #[must_use]
    pub fn wgpu_buffer(&self, buffer: &DeviceBuffer) -> Option<wgpu::Buffer> {
        let state = self.state().ok()?;
        self.resident(buffer, &state)
            .ok()
            .map(|held| held.buffer.clone())
    }

    /// A `DeviceBuffer` over a buffer the application made on this backend's device, so vyre
    /// dispatches can read and write it in place. It must have `STORAGE` usage; reading it back
    /// needs `COPY_SRC`, writing (and being an `output`, which is cleared) `COPY_DST`, binding it
    /// as a `uniform` buffer `UNIFORM`. Its length is the buffer's size.
    ///
    /// ```
    /// use vyre_driver::VyreBackend;
    /// use vyre_driver_wgpu::{WgpuBackend, wgpu};
    ///
    /// let Ok(backend) = WgpuBackend::acquire() else { return Ok(()) };
    /// let device = backend.wgpu_device().expect("the device");
    /// let raw = device.create_buffer(&wgpu::BufferDescriptor {
    ///     label: Some("app data"),
    ///     size: 256,
    ///     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    ///     mapped_at_creation: false,
    /// });
    /// let buffer = backend.import_buffer(raw)?;
    /// backend.write_buffer(&buffer, 0, &[1, 2, 3, 4])?;
    /// assert_eq!(backend.read_buffer(&buffer, 0..4)?, [1, 2, 3, 4]);
    /// # Ok::<(), vyre_driver::BackendError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`BackendError::InvalidConfig`] for a buffer without `STORAGE` usage, and for a buffer of
    /// another device (another vyre backend's, say). wgpu can tell devices apart only within one
    /// `wgpu::Instance`: every backend vyre opens shares one, and `from_device` takes the
    /// application's; a buffer of yet another instance must not be imported (wgpu cannot resolve it).
    pub fn import_buffer(&self, buffer: wgpu::Buffer) -> Result<DeviceBuffer, BackendError> {
        if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(BackendError::invalid_config(format!(
                "an imported buffer needs STORAGE usage; this one has {:?}. Fix: create it with `wgpu::BufferUsages::STORAGE` (and COPY_SRC / COPY_DST to read or write it through vyre).",
                buffer.usage()
            )));
        }
        let state = self.state()?;
        if let Err(why) = on_device(&state.device, &buffer) {
            return Err(BackendError::invalid_config(format!(
                "the imported buffer does not belong to this backend's device ({why}). Fix: import only buffers created on this backend's device (`wgpu_device()`, or the device given to `from_device`); move data between backends with `read_buffer` and `write_buffer`."
            )));
        }
        let size = buffer.size();
        Ok(DeviceBuffer::new(
            self.shared.owner,
            size,
            WgpuBuffer {
                buffer,
                generation: state.generation,
                allocated: size,
            },
        ))
    }

    /// The driver's shared checks of a sequence for every step, in its order (the program
    /// validated, then the buffers against it and the grid planned; the device's features are
    /// checked where the program's pipeline is compiled), except that a program known to the
    /// backend (equal to one dispatched lately) is not validated again.
    ///
    /// # Errors
    ///
    /// The first failing step's error, named as `vyre_driver::prepare_sequence` names it.
    pub(crate) fn known_steps<'a>(
        &self,
        steps: &[Step<'a>],
    ) -> Result<Vec<KnownStep<'a>>, BackendError> {
        steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                self.known_step(step)
                    .map_err(|e| e.in_sequence(i, steps.len()))
            })
            .collect()
    }

    fn known_step<'a>(&self, step: &Step<'a>) -> Result<KnownStep<'a>, BackendError> {
        let known = self.known(step.program)?;
        let plan = vyre_driver::plan_resident(step.program, step.buffers, step.config)?;
        Ok(KnownStep {
            known,
            plan,
            buffers: step.buffers,
            config: step.config,
        })
    }

    /// The steps the driver's shared checks accepted, each with its known program.
    ///
    /// # Errors
    ///
    /// As [`WgpuBackend::known_validated`].
    pub(crate) fn prepared_steps<'a>(
        &self,
        steps: &[PreparedStep<'a>],
    ) -> Result<Vec<KnownStep<'a>>, BackendError> {
        steps
            .iter()
            .map(|step| {
                Ok(KnownStep {
                    known: self.known_validated(&step.program)?,
                    plan: step.plan.clone(),
                    buffers: step.buffers,
                    config: step.config,
                })
            })
            .collect()
    }

    pub(crate) fn sequence(&self, steps: &[KnownStep<'_>]) -> Result<(), BackendError> {
        match self.start_sequence(steps)? {
            Some(settling) => settling.wait(),
            None => Ok(()),
        }
    }

    /// A checked sequence planned and submitted at once (`None` for no steps, which run nothing):
    /// under way when this returns.
    pub(crate) fn start_sequence(
        &self,
        steps: &[KnownStep<'_>],
    ) -> Result<Option<Settling>, BackendError> {
        if steps.is_empty() {
            return Ok(None);
        }
        if self.device_lost() {
            // The buffers below will report their loss; recovering first keeps the backend usable.
            self.try_recover()?;
        }
        let state = self.state()?;
        let mut launches = Vec::with_capacity(steps.len());
        // The sequence may take as long as its steps together; unbounded if any step is.
        let mut timeout = Some(Duration::ZERO);
        for (i, step) in steps.iter().enumerate() {
            let planned = self.plan_step(&state, step);
            launches.push(planned.map_err(|e| e.in_sequence(i, steps.len()))?);
            timeout = timeout.zip(step.config.timeout).map(|(a, b)| a + b);
        }
        launch::start_sequence(self.context(&state), &launches, timeout).map(Some)
    }

    fn plan_step<'s>(
        &self,
        state: &DeviceState,
        step: &KnownStep<'s>,
    ) -> Result<ResidentLaunch<'s>, BackendError> {
        let plan = &step.plan;
        let known = &step.known;
        let program = known.program();
        let per_piece = split::piece_elements(state, program, &known.facts, plan)?;
        // Whole rows must fit the binding limit and the buffer the step passes (an imported buffer
        // may end inside a row).
        let launch = match per_piece {
            Some(_) => form::split(plan),
            None => form::choose(
                &known.facts,
                program,
                plan,
                state.limits.max_compute_workgroups_per_dimension,
                |j, bytes| {
                    bytes <= state.limits.max_storage_buffer_binding_size
                        && plan.buffers[j]
                            .input
                            .and_then(|k| step.buffers.get(k))
                            .and_then(|buffer| self.resident(buffer, state).ok())
                            .is_some_and(|held| bytes <= held.allocated)
                },
            )?,
        };
        let compiled = self.get_or_compile(state, known, launch.form)?;
        let mut bound = Vec::with_capacity(compiled.bindings.len());
        // Two imports of one wgpu buffer are two `DeviceBuffer`s, which `plan_resident`'s check of
        // one buffer bound writable twice cannot tell apart: the device buffers can.
        let mut seen: Vec<(&wgpu::Buffer, &str, bool)> = Vec::new();
        for b in &compiled.bindings {
            let decl = &program.buffers[b.buffer_index];
            let resolved = plan.buffers[b.buffer_index];
            let Some(k) = resolved.input else {
                return Err(BackendError::new(
                    "a bound buffer has no DeviceBuffer in its plan. Fix: report this vyre bug with the program text.",
                ));
            };
            let buffer = step.buffers[k];
            let held = self.resident(buffer, state)?;
            let writable = decl.access.is_writable();
            if let Some((_, other, _)) = seen
                .iter()
                .find(|(seen, _, w)| *seen == &held.buffer && (*w || writable))
            {
                return Err(BackendError::invalid_config(format!(
                    "`{other}` and `{}` are passed DeviceBuffers over one wgpu buffer (imported twice), and the program may write one of them. Fix: pass distinct buffers (copy the data with read_buffer and write_buffer if both need it).",
                    decl.name
                )));
            }
            seen.push((&held.buffer, &decl.name, writable));
            let bytes = binding_bytes(b, resolved.element_count)
                .ok_or_else(|| launch::size_overflow(&format!("buffer `{}`", decl.name)))?;
            let max = match b.kind {
                lower::BindingKind::Uniform => state.limits.max_uniform_buffer_binding_size,
                _ => state.limits.max_storage_buffer_binding_size,
            };
            if bytes > max && per_piece.is_none() {
                return Err(BackendError::limit_exceeded(format!(
                    "buffer `{}` binds {bytes} bytes; this device binds at most {max}. Fix: split the data over several buffers and dispatches.",
                    decl.name
                )));
            }
            let usage = match b.kind {
                lower::BindingKind::Uniform => wgpu::BufferUsages::UNIFORM,
                _ => wgpu::BufferUsages::STORAGE,
            };
            needs(held, usage, "bound this way")?;
            // An output the program writes in full over this grid needs no clear.
            let overwritten = compiled.fully_written().contains(&b.buffer_index)
                && lower::covers(
                    plan.grid[0],
                    program.workgroup_size[0],
                    resolved.element_count,
                );
            let output = decl.access == BufferAccess::Output && !overwritten;
            let clear = output
                .then(|| {
                    resolved
                        .element_count
                        .checked_mul(decl.element.size_bytes() as u64)
                })
                .map(|bytes| {
                    bytes.ok_or_else(|| launch::size_overflow(&format!("buffer `{}`", decl.name)))
                })
                .transpose()?;
            if output {
                needs(held, wgpu::BufferUsages::COPY_DST, "cleared as an output")?;
            }
            if bytes > held.allocated {
                return Err(BackendError::input_mismatch(format!(
                    "buffer `{}` binds {bytes} bytes but its imported wgpu buffer has {}. Fix: import a buffer of at least {bytes} bytes (uniform buffers bind whole 16-byte rows).",
                    decl.name, held.allocated
                )));
            }
            bound.push(Bound {
                buffer: &held.buffer,
                bytes,
                clear,
            });
        }
        let pieces = match per_piece {
            Some(n) => {
                let bytes: Vec<u64> = bound.iter().map(|b| b.bytes).collect();
                split::pieces(state, &compiled, plan, &bytes, n)?
            }
            None => launch.pieces(plan)?,
        };
        Ok(ResidentLaunch {
            compiled,
            bound,
            pieces,
        })
    }
}

/// One step of a resident sequence, checked, with the backend's known program.
pub(crate) struct KnownStep<'a> {
    pub(super) known: Arc<Known>,
    pub(super) plan: DispatchPlan,
    pub(super) buffers: &'a [&'a DeviceBuffer],
    pub(super) config: &'a DispatchConfig,
}

/// Checks that an imported buffer has `usage` (vyre's own buffers have every usage it needs).
fn needs(held: &WgpuBuffer, usage: wgpu::BufferUsages, what: &str) -> Result<(), BackendError> {
    if held.buffer.usage().contains(usage) {
        Ok(())
    } else {
        Err(BackendError::invalid_config(format!(
            "a DeviceBuffer imported with usage {:?} is {what}, which needs {usage:?}. Fix: create the wgpu buffer with that usage too.",
            held.buffer.usage()
        )))
    }
}

/// Whether `buffer` is one of `device`'s, asked of wgpu: binding a buffer of another device is a
/// validation error, caught here in an error scope, where a later dispatch would fail in the middle
/// of its work. wgpu can tell only buffers of one `wgpu::Instance` apart; every backend vyre opens
/// shares one (`device::shared_instance`), and an application's buffers come from its own device.
/// A buffer under 4 bytes cannot be bound and is not checked.
fn on_device(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Result<(), String> {
    let Some(size) = std::num::NonZeroU64::new(4).filter(|_| buffer.size() >= 4) else {
        return Ok(());
    };
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("vyre import check"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("vyre import check"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: Some(size),
            }),
        }],
    });
    drop(group);
    match pollster::block_on(scope.pop()) {
        None => Ok(()),
        // wgpu's report spans several lines ("Validation Error", "Caused by:", ...): one line here.
        Some(e) => Err(e
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")),
    }
}
