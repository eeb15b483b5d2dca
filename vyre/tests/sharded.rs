//! `vyre::Sharded` gives exactly one backend's results: split elementwise dispatches, batches of
//! items and resident buffers, over reference members, over two wgpu devices on one adapter
//! (lavapipe here), over members of very different speeds, and with one member losing its device
//! (recovering, or not at all).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use vyre::ir::{AtomicOp, BufferDecl, DataType, Expr, Node, Program};
use vyre::{
    BackendError, Capabilities, DeviceBuffer, DispatchConfig, DispatchPlan, ReferenceBackend,
    Sharded, Step, Validated, VyreBackend,
};
use vyre_driver::PreparedStep;
use vyre_driver_wgpu::{AdapterOptions, WgpuBackend};

fn words(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    values.into_iter().flat_map(u32::to_le_bytes).collect()
}

/// Two wgpu devices on the one adapter, or `None` (skipped) without one.
fn two_devices(test: &str) -> Option<Vec<WgpuBackend>> {
    vyre_driver_wgpu::testing::backend_or_skip(test)?;
    match WgpuBackend::acquire_devices(&AdapterOptions::new(), 2) {
        Ok(devices) => Some(devices),
        Err(e) => panic!("{test}: one device opened but not two: {e}"),
    }
}

fn boxed(backends: Vec<WgpuBackend>) -> Vec<Box<dyn VyreBackend>> {
    backends
        .into_iter()
        .map(|b| Box::new(b) as Box<dyn VyreBackend>)
        .collect()
}

/// Elementwise programs that exercise every rule a range must keep: builtins as values
/// (`gid.x`, `workgroup_id.x`, `num_workgroups.x`), `buf_len`, buffers of different lengths
/// (shorter inputs, an output longer than the grid), an alias of `gid.x`, a read_write buffer, an
/// atomic at `gid.x`, workgroup memory with a barrier, an output byte range, a 2-D grid.
fn elementwise_programs(n: u32) -> Vec<(Program, Vec<Vec<u8>>, DispatchConfig)> {
    let mut cases = Vec::new();
    let add = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(n),
            BufferDecl::read("b", 1, DataType::U32),
            BufferDecl::output("c", 2, DataType::U32).with_count(n + 100),
        ],
        [64, 1, 1],
        vec![
            Node::let_bind("i", Expr::gid_x()),
            Node::store(
                "c",
                Expr::var("i"),
                Expr::add(
                    Expr::add(
                        Expr::load("a", Expr::var("i")),
                        Expr::load("b", Expr::gid_x()),
                    ),
                    Expr::mul(Expr::var("i"), Expr::u32(1_000_003)),
                ),
            ),
        ],
    );
    // `b` is runtime-sized and shorter than `a`; `a`'s input is shorter than its count.
    cases.push((
        add,
        vec![
            words((0..n - 7).map(|v| v * 3)),
            words((0..n / 2).map(|v| v ^ 0xabcd)),
        ],
        DispatchConfig::default(),
    ));
    let builtins = Program::new(
        vec![
            BufferDecl::read_write("rw", 0, DataType::U32).with_count(n),
            BufferDecl::output("o", 1, DataType::U32)
                .with_count(n)
                .with_output_byte_range(4..(n as usize * 4 - 8)),
            BufferDecl::workgroup("tile", 32, DataType::U32),
        ],
        [32, 1, 1],
        vec![
            Node::store("tile", Expr::local_x(), Expr::workgroup_x()),
            Node::barrier(),
            Node::let_bind(
                "old",
                Expr::atomic(AtomicOp::Add, "rw", Expr::gid_x(), Expr::num_workgroups_x()),
            ),
            Node::if_then(
                Expr::lt(Expr::gid_x(), Expr::sub(Expr::buf_len("o"), Expr::u32(3))),
                vec![Node::store(
                    "o",
                    Expr::gid_x(),
                    Expr::add(
                        Expr::add(Expr::var("old"), Expr::load("rw", Expr::gid_x())),
                        Expr::add(
                            Expr::load("tile", Expr::sub(Expr::u32(31), Expr::local_x())),
                            Expr::mul(Expr::buf_len("rw"), Expr::u32(7)),
                        ),
                    ),
                )],
            ),
        ],
    );
    cases.push((
        builtins,
        vec![words((0..n).map(|v| v.wrapping_mul(2_654_435_761)))],
        DispatchConfig::default(),
    ));
    // A 2-D grid: every row y stores the same element (the last row's write wins on one device as
    // on several, since every row of a column runs in the one range holding that column).
    let rows = Program::new(
        vec![BufferDecl::output("o", 0, DataType::U32).with_count(n)],
        [16, 2, 1],
        vec![Node::if_then(
            Expr::eq(Expr::gid_y(), Expr::u32(0)),
            vec![Node::store(
                "o",
                Expr::gid_x(),
                Expr::add(Expr::gid_x(), Expr::num_workgroups_x()),
            )],
        )],
    );
    cases.push((
        rows,
        Vec::new(),
        DispatchConfig::new().with_grid([n.div_ceil(16), 3, 1]),
    ));
    cases
}

fn assert_same_as_reference(sharded: &Sharded, n: u32) {
    let reference = ReferenceBackend::new();
    for (program, inputs, config) in elementwise_programs(n) {
        let expected = reference
            .dispatch(&program, &inputs, &config)
            .unwrap_or_else(|e| panic!("reference: {e}\n{program}"));
        let got = sharded
            .dispatch(&program, &inputs, &config)
            .unwrap_or_else(|e| panic!("sharded: {e}\n{program}"));
        assert_eq!(
            got, expected,
            "sharded differs from the reference on\n{program}"
        );
    }
}

#[test]
fn empty_member_list_is_an_error_with_a_fix() {
    let err = Sharded::new(Vec::new()).unwrap_err();
    assert_eq!(err.kind_name(), "InvalidConfig");
    assert!(err.to_string().contains("Fix:"), "{err}");
}

#[test]
fn split_dispatches_over_reference_members_equal_one_reference() {
    let members: Vec<Box<dyn VyreBackend>> = (0..3)
        .map(|_| Box::new(ReferenceBackend::new()) as Box<dyn VyreBackend>)
        .collect();
    let sharded = Sharded::new(members).unwrap().with_split_threshold(1);
    for n in [1000, 4099] {
        assert_same_as_reference(&sharded, n);
    }
    let stats = sharded.stats();
    assert!(
        stats.iter().filter(|m| m.pieces > 0).count() >= 2,
        "the dispatches were not split: {stats:?}"
    );
}

#[test]
fn a_program_that_is_not_elementwise_runs_whole_on_one_member() {
    let members: Vec<Box<dyn VyreBackend>> = vec![
        Box::new(ReferenceBackend::new()),
        Box::new(ReferenceBackend::new()),
    ];
    let sharded = Sharded::new(members).unwrap().with_split_threshold(1);
    // Reverses its input: each invocation reads another's element.
    let reverse = Program::new(
        vec![
            BufferDecl::read("a", 0, DataType::U32).with_count(512),
            BufferDecl::output("o", 1, DataType::U32).with_count(512),
        ],
        [64, 1, 1],
        vec![Node::store(
            "o",
            Expr::gid_x(),
            Expr::load("a", Expr::sub(Expr::u32(511), Expr::gid_x())),
        )],
    );
    let input = vec![words(0..512)];
    let got = sharded
        .dispatch(&reverse, &input, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got[0], words((0..512).rev()));
    let stats = sharded.stats();
    assert_eq!(stats.iter().map(|m| m.pieces).sum::<u64>(), 0);
    assert_eq!(stats.iter().map(|m| m.dispatches).sum::<u64>(), 1);
}

/// A program for batches: `y[i] = x[i] * 7 + len(x)`, so items of different lengths differ.
fn batch_program() -> Program {
    Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::U32),
            BufferDecl::output("y", 1, DataType::U32).with_count(64),
        ],
        [64, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::add(
                Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(7)),
                Expr::buf_len("x"),
            ),
        )],
    )
}

/// `count` items of 1 to 64 words, in no order of size.
fn batch_items(count: u32) -> Vec<Vec<Vec<u8>>> {
    (0..count)
        .map(|k| {
            let len = 1 + (k.wrapping_mul(37) % 64);
            vec![words((0..len).map(|v| v + k))]
        })
        .collect()
}

fn expected_batch(items: &[Vec<Vec<u8>>]) -> Vec<Vec<Vec<u8>>> {
    let reference = ReferenceBackend::new();
    let program = batch_program();
    items
        .iter()
        .map(|inputs| {
            reference
                .dispatch(&program, inputs, &DispatchConfig::default())
                .unwrap()
        })
        .collect()
}

/// `count` items of [`batch_items`] with the items at `bad` cut to `bytes` bytes each (not whole
/// words, so each fails on its own).
fn items_with_bad(count: u32, bad: &[(usize, usize)]) -> Vec<Vec<Vec<u8>>> {
    let mut items = batch_items(count);
    for &(k, bytes) in bad {
        items[k][0].truncate(bytes);
    }
    items
}

/// The error a batch returns is the failing item's with the lowest index, named by its index in
/// the batch: what one backend running the items in order gives, although the members run the
/// largest items first and index their own chunks.
fn assert_first_bad_item_named(sharded: &Sharded, who: &str) {
    let config = DispatchConfig::default();
    for bad in [
        vec![(40, 6), (250, 30)],
        vec![(0, 2)],
        vec![(177, 6)],
        vec![(299, 6), (3, 10)],
    ] {
        let items = items_with_bad(300, &bad);
        let first = bad.iter().map(|&(k, _)| k).min().unwrap();
        let bytes = bad.iter().find(|&&(k, _)| k == first).unwrap().1;
        let err = sharded
            .dispatch_batch(&batch_program(), &items, &config)
            .unwrap_err();
        let text = err.to_string();
        assert_eq!(err.kind_name(), "InputMismatch", "{who}: {text}");
        assert!(
            text.starts_with(&format!("work item {first}: "))
                && text.contains(&format!("{bytes} bytes")),
            "{who}: bad items {bad:?} gave: {text}"
        );
    }
}

#[test]
fn a_failing_batch_names_its_lowest_failing_item_over_reference_members() {
    let members: Vec<Box<dyn VyreBackend>> = (0..2)
        .map(|_| Box::new(ReferenceBackend::new()) as Box<dyn VyreBackend>)
        .collect();
    assert_first_bad_item_named(&Sharded::new(members).unwrap(), "reference members");
}

#[test]
fn a_failing_batch_names_its_lowest_failing_item_over_wgpu_members() {
    let Some(devices) =
        two_devices("a_failing_batch_names_its_lowest_failing_item_over_wgpu_members")
    else {
        return;
    };
    assert_first_bad_item_named(&Sharded::new(boxed(devices)).unwrap(), "wgpu members");
}

/// The reference, failing any dispatch whose first input starts with the word `0xbad`, and any
/// batch of more than `batch_limit` items: failures only running finds.
struct Picky {
    inner: ReferenceBackend,
    batch_limit: usize,
}

impl VyreBackend for Picky {
    fn id(&self) -> &str {
        "picky"
    }

    fn capabilities(&self) -> vyre::Capabilities {
        self.inner.capabilities()
    }

    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, vyre::BackendError> {
        if inputs
            .first()
            .is_some_and(|x| x.starts_with(&0xbadu32.to_le_bytes()))
        {
            return Err(vyre::BackendError::new(
                "a bad word. Fix: none, it is a test.",
            ));
        }
        self.inner.dispatch(program, inputs, config)
    }

    fn dispatch_batch(
        &self,
        program: &Program,
        items: &[Vec<Vec<u8>>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<Vec<u8>>>, vyre::BackendError> {
        if items.len() > self.batch_limit {
            return Err(vyre::BackendError::out_of_memory(
                "too many items. Fix: none, it is a test.",
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(k, inputs)| {
                self.dispatch(program, inputs, config)
                    .map_err(|e| e.in_item(k))
            })
            .collect()
    }
}

fn picky(batch_limit: usize) -> Sharded {
    let members: Vec<Box<dyn VyreBackend>> = (0..2)
        .map(|_| {
            Box::new(Picky {
                inner: ReferenceBackend::new(),
                batch_limit,
            }) as Box<dyn VyreBackend>
        })
        .collect();
    Sharded::new(members).unwrap()
}

#[test]
fn a_batch_failing_only_when_run_names_its_lowest_failing_item() {
    let sharded = picky(usize::MAX);
    for bad in [vec![40, 250], vec![0], vec![299, 3]] {
        let mut items = batch_items(300);
        for &k in &bad {
            items[k][0][..4].copy_from_slice(&0xbadu32.to_le_bytes());
        }
        let err = sharded
            .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
            .unwrap_err();
        let first = bad.iter().min().unwrap();
        assert!(
            err.to_string()
                .starts_with(&format!("work item {first}: a bad word")),
            "bad items {bad:?}: {err}"
        );
    }
}

#[test]
fn a_failure_of_no_one_item_names_the_chunk_it_came_from() {
    // Every batch of more than one item fails, but each item alone runs: no item is to blame.
    let sharded = picky(1);
    let err = sharded
        .dispatch_batch(
            &batch_program(),
            &batch_items(300),
            &DispatchConfig::default(),
        )
        .unwrap_err();
    assert_eq!(err.kind_name(), "OutOfMemory", "{err}");
    assert!(err.to_string().contains("failed a chunk of items"), "{err}");
}

#[test]
fn batches_over_reference_members_come_back_in_order() {
    let members: Vec<Box<dyn VyreBackend>> = (0..3)
        .map(|_| Box::new(ReferenceBackend::new()) as Box<dyn VyreBackend>)
        .collect();
    let sharded = Sharded::new(members).unwrap();
    let items = batch_items(600);
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected_batch(&items));
    let stats = sharded.stats();
    assert_eq!(stats.iter().map(|m| m.items).sum::<u64>(), 600);
    // An empty batch, and an invalid program's one error.
    let none = sharded
        .dispatch_batch(&batch_program(), &[], &DispatchConfig::default())
        .unwrap();
    assert!(none.is_empty());
    let bad = Program::new(
        vec![BufferDecl::output("o", 0, DataType::U32)],
        [64, 1, 1],
        vec![],
    );
    let err = sharded
        .dispatch_batch(&bad, &items, &DispatchConfig::default())
        .unwrap_err();
    assert_eq!(err.kind_name(), "InvalidProgram");
}

/// A reference backend whose "device" is lost at its `after`-th dispatch from now (each dispatch
/// of a batch counts), and stays lost until `try_recover`, which fails when it is unrecoverable.
struct Flaky {
    inner: ReferenceBackend,
    countdown: AtomicI64,
    lost: AtomicBool,
    recoverable: bool,
}

impl Flaky {
    fn new(after: i64, recoverable: bool) -> Self {
        Self {
            inner: ReferenceBackend::new(),
            countdown: AtomicI64::new(after),
            lost: AtomicBool::new(false),
            recoverable,
        }
    }

    fn check(&self) -> Result<(), BackendError> {
        if self.countdown.fetch_sub(1, Ordering::SeqCst) == 0 {
            self.lost.store(true, Ordering::SeqCst);
        }
        if self.lost.load(Ordering::SeqCst) {
            return Err(BackendError::device_lost(
                "the flaky test device is lost. Fix: recover it.",
            ));
        }
        Ok(())
    }
}

impl VyreBackend for Flaky {
    fn id(&self) -> &str {
        "flaky"
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        self.check()?;
        self.inner.execute(program, plan, inputs, config)
    }
    fn create_buffer(&self, bytes: u64) -> Result<DeviceBuffer, BackendError> {
        self.inner.create_buffer(bytes)
    }
    fn write_buffer(&self, b: &DeviceBuffer, offset: u64, data: &[u8]) -> Result<(), BackendError> {
        self.inner.write_buffer(b, offset, data)
    }
    fn read_buffer(
        &self,
        b: &DeviceBuffer,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.inner.read_buffer(b, range)
    }
    fn execute_sequence(&self, steps: &[PreparedStep<'_>]) -> Result<(), BackendError> {
        self.check()?;
        self.inner.execute_sequence(steps)
    }
    fn device_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
    fn try_recover(&self) -> Result<(), BackendError> {
        if self.recoverable {
            self.lost.store(false, Ordering::SeqCst);
            Ok(())
        } else if self.lost.load(Ordering::SeqCst) {
            Err(BackendError::device_lost(
                "the flaky test device cannot come back. Fix: none; drop it.",
            ))
        } else {
            Ok(())
        }
    }
}

#[test]
fn a_member_that_loses_its_device_mid_batch_recovers_and_its_chunk_runs_again() {
    // The healthy member is slowed so that it cannot drain the whole batch before the flaky
    // member's thread takes its first chunk (it did, on a loaded machine).
    let members: Vec<Box<dyn VyreBackend>> =
        vec![Box::new(Slow::new(1)), Box::new(Flaky::new(5, true))];
    let sharded = Sharded::new(members).unwrap();
    let items = batch_items(400);
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected_batch(&items));
    let stats = sharded.stats();
    assert!(stats.iter().all(|m| m.alive), "{stats:?}");
    assert_eq!(stats[1].recoveries, 1, "{stats:?}");
    assert_eq!(stats[1].reruns, 1, "{stats:?}");
    assert_eq!(stats.iter().map(|m| m.items).sum::<u64>(), 400, "{stats:?}");
}

#[test]
fn a_member_that_cannot_recover_is_dropped_and_the_batch_still_completes() {
    // Slowed healthy members, as above: the flaky one must get work to fail at.
    let members: Vec<Box<dyn VyreBackend>> = vec![
        Box::new(Flaky::new(3, false)),
        Box::new(Slow::new(1)),
        Box::new(Slow::new(1)),
    ];
    let sharded = Sharded::new(members).unwrap();
    let items = batch_items(500);
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected_batch(&items));
    let stats = sharded.stats();
    assert!(
        !stats[0].alive && stats[1].alive && stats[2].alive,
        "{stats:?}"
    );
    assert_eq!(stats.iter().map(|m| m.items).sum::<u64>(), 500, "{stats:?}");
    // Later calls run on the members left; the split dispatches too.
    let sharded = sharded.with_split_threshold(1);
    assert_same_as_reference(&sharded, 777);
    assert!(!sharded.device_lost());
}

#[test]
fn a_range_whose_member_is_lost_runs_again_and_the_outputs_are_exact() {
    for recoverable in [true, false] {
        let members: Vec<Box<dyn VyreBackend>> = vec![
            Box::new(Flaky::new(1, recoverable)),
            Box::new(ReferenceBackend::new()),
        ];
        let sharded = Sharded::new(members).unwrap().with_split_threshold(1);
        assert_same_as_reference(&sharded, 2000);
        let stats = sharded.stats();
        assert_eq!(stats[0].alive, recoverable, "{stats:?}");
        assert_eq!(stats[0].reruns, 1, "{stats:?}");
    }
}

#[test]
fn when_every_member_is_gone_the_error_says_so() {
    let members: Vec<Box<dyn VyreBackend>> = vec![Box::new(Flaky::new(0, false))];
    let sharded = Sharded::new(members).unwrap();
    let err = sharded
        .dispatch_batch(
            &batch_program(),
            &batch_items(10),
            &DispatchConfig::default(),
        )
        .unwrap_err();
    assert!(err.is_device_lost(), "{err}");
    assert!(err.to_string().contains("Fix:"), "{err}");
    assert!(sharded.device_lost());
}

#[test]
fn resident_buffers_move_to_the_member_a_step_runs_on() {
    let members: Vec<Box<dyn VyreBackend>> = vec![
        Box::new(ReferenceBackend::new()),
        Box::new(ReferenceBackend::new()),
    ];
    let sharded = Sharded::new(members).unwrap();
    let double = Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::U32).with_count(4),
            BufferDecl::read_write("y", 1, DataType::U32).with_count(4),
        ],
        [64, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::add(
                Expr::load("y", Expr::gid_x()),
                Expr::mul(Expr::load("x", Expr::gid_x()), Expr::u32(2)),
            ),
        )],
    );
    // Two buffers, placed on the two members (each goes to the least-loaded one).
    let x = sharded.create_buffer(16).unwrap();
    let y = sharded.create_buffer(16).unwrap();
    sharded.write_buffer(&x, 0, &words([1, 2, 3, 4])).unwrap();
    sharded
        .write_buffer(&y, 0, &words([10, 20, 30, 40]))
        .unwrap();
    let config = DispatchConfig::default();
    sharded
        .dispatch_sequence(&[
            Step::new(&double, &[&x, &y], &config),
            Step::new(&double, &[&x, &y], &config),
        ])
        .unwrap();
    assert_eq!(
        sharded.read_buffer(&y, 0..16).unwrap(),
        words([14, 28, 42, 56])
    );
    // Another backend's buffer is refused as one backend refuses it.
    let foreign = ReferenceBackend::new().create_buffer(16).unwrap();
    let err = sharded.read_buffer(&foreign, 0..4).unwrap_err();
    assert_eq!(err.kind_name(), "InvalidConfig");
}

#[test]
fn split_dispatches_over_two_lavapipe_devices_equal_the_reference() {
    let Some(devices) = two_devices("split_dispatches_over_two_lavapipe_devices") else {
        return;
    };
    let sharded = Sharded::new(boxed(devices))
        .unwrap()
        .with_split_threshold(1);
    for n in [1000, 70_001] {
        assert_same_as_reference(&sharded, n);
    }
    assert!(
        sharded.stats().iter().all(|m| m.pieces > 0),
        "{:?}",
        sharded.stats()
    );
}

#[test]
fn batches_over_two_lavapipe_devices_with_injected_and_forced_losses_equal_the_reference() {
    let Some(devices) = two_devices("batches_over_two_lavapipe_devices") else {
        return;
    };
    // One member loses its device in the middle of its first launch, and again before the next
    // call; it recovers each time (wgpu recovers and retries by itself) while the other goes on.
    devices[1].inject_fault(vyre_driver_wgpu::FaultPoint::AfterSubmit);
    let second = devices[1].clone();
    let sharded = Sharded::new(boxed(devices)).unwrap();
    let items = batch_items(3000);
    let expected = expected_batch(&items);
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected);
    second.force_device_lost().unwrap();
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected);
    assert!(second.stats().recoveries >= 2, "{:?}", second.stats());
    let stats = sharded.stats();
    assert!(stats.iter().all(|m| m.alive), "{stats:?}");
    assert_eq!(
        stats.iter().map(|m| m.items).sum::<u64>(),
        6000,
        "{stats:?}"
    );
}

/// A wgpu member over a device the test opened itself: vyre never replaces such a device, so
/// once it is lost the member cannot recover.
fn unrecoverable_member() -> Option<WgpuBackend> {
    let instance = vyre_driver_wgpu::wgpu::Instance::new(
        vyre_driver_wgpu::wgpu::InstanceDescriptor::new_without_display_handle(),
    );
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).ok()?;
    if adapter.get_info().backend == vyre_driver_wgpu::wgpu::Backend::Gl {
        return None;
    }
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).ok()?;
    WgpuBackend::from_device(adapter, device, queue).ok()
}

#[test]
fn a_lavapipe_member_that_cannot_recover_is_dropped_and_the_work_completes() {
    let Some(devices) = two_devices("a_lavapipe_member_that_cannot_recover") else {
        return;
    };
    let Some(doomed) = unrecoverable_member() else {
        panic!("an adapter opened through vyre but not directly");
    };
    let handle = doomed.clone();
    let mut members = boxed(devices);
    members.insert(0, Box::new(doomed));
    let sharded = Sharded::new(members).unwrap().with_split_threshold(1);
    handle.force_device_lost().unwrap();
    let items = batch_items(1000);
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected_batch(&items));
    assert_same_as_reference(&sharded, 5000);
    let stats = sharded.stats();
    assert!(
        !stats[0].alive && stats[1].alive && stats[2].alive,
        "{stats:?}"
    );
}

#[test]
fn members_of_very_different_speeds_give_exact_results() {
    let Some(gpu) = vyre_driver_wgpu::testing::backend_or_skip("members_of_very_different_speeds")
    else {
        return;
    };
    // On lavapipe the reference is no slower than wgpu for small items; on a GPU it is far
    // slower. Either way the results are exact; which member takes more is the next test's.
    let members: Vec<Box<dyn VyreBackend>> = vec![Box::new(ReferenceBackend::new()), Box::new(gpu)];
    let sharded = Sharded::new(members).unwrap().with_split_threshold(1);
    let items = batch_items(4000);
    let expected = expected_batch(&items);
    for _ in 0..2 {
        let got = sharded
            .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
            .unwrap();
        assert_eq!(got, expected);
    }
    for _ in 0..2 {
        assert_same_as_reference(&sharded, 50_000);
    }
    eprintln!("{:#?}", sharded.stats());
}

/// A reference backend that takes `delay` longer for every dispatch.
struct Slow {
    inner: ReferenceBackend,
    delay: std::time::Duration,
}

impl Slow {
    fn new(delay_ms: u64) -> Self {
        Self {
            inner: ReferenceBackend::new(),
            delay: std::time::Duration::from_millis(delay_ms),
        }
    }
}

impl VyreBackend for Slow {
    fn id(&self) -> &str {
        "slow"
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn execute(
        &self,
        program: &Validated<'_>,
        plan: &DispatchPlan,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        std::thread::sleep(self.delay);
        self.inner.execute(program, plan, inputs, config)
    }
}

#[test]
fn a_member_a_hundred_times_slower_takes_few_items() {
    let members: Vec<Box<dyn VyreBackend>> = vec![
        Box::new(Slow {
            inner: ReferenceBackend::new(),
            delay: std::time::Duration::from_millis(2),
        }),
        Box::new(ReferenceBackend::new()),
    ];
    let sharded = Sharded::new(members).unwrap();
    let items = batch_items(3000);
    let got = sharded
        .dispatch_batch(&batch_program(), &items, &DispatchConfig::default())
        .unwrap();
    assert_eq!(got, expected_batch(&items));
    let stats = sharded.stats();
    assert!(
        stats[0].items * 4 < stats[1].items,
        "the slow member took too large a share: {stats:?}"
    );
    assert!(stats[0].batch_rate < stats[1].batch_rate, "{stats:?}");
}

#[test]
fn random_programs_agree_with_the_reference_when_split_over_two_members() {
    use vyre_conformance::fuzz::{self, FuzzOptions};
    let members: Vec<Box<dyn VyreBackend>> = vec![
        Box::new(ReferenceBackend::new()),
        Box::new(ReferenceBackend::new()),
    ];
    let sharded = Sharded::new(members).unwrap().with_split_threshold(1);
    let options = FuzzOptions {
        cases: 1500,
        seed: 20,
        regressions_dir: Some(std::env::temp_dir().join("vyre-fuzz-regressions-sharded")),
        batch: 128,
        ..FuzzOptions::default()
    };
    // The fuzzer gives every dispatch an execution budget, and a budget keeps a dispatch whole
    // (ranges would spend it differently); the wrapper lifts it on the sharded side (the
    // generated programs terminate, and the timeout still holds).
    let unbudgeted = Unbudgeted(&sharded);
    let summary = fuzz::run(&options, &ReferenceBackend::new(), &unbudgeted, &|_| {});
    let reports: Vec<String> = summary.mismatches.iter().map(|m| m.report()).collect();
    assert!(reports.is_empty(), "{}", reports.join("\n\n"));
    assert_eq!(summary.programs, 1500);
    let pieces: u64 = sharded.stats().iter().map(|m| m.pieces).sum();
    eprintln!(
        "{pieces} ranges over {} programs: {:?}",
        summary.programs,
        sharded.stats()
    );
    assert!(
        pieces > 0,
        "no random program was split: {:?}",
        sharded.stats()
    );
}

/// `Sharded` with the execution budget (`fuel`) of every dispatch lifted.
struct Unbudgeted<'a>(&'a Sharded);

impl VyreBackend for Unbudgeted<'_> {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn dispatch(
        &self,
        program: &Program,
        inputs: &[Vec<u8>],
        config: &DispatchConfig,
    ) -> Result<Vec<Vec<u8>>, BackendError> {
        let mut config = config.clone();
        config.fuel = None;
        self.0.dispatch(program, inputs, &config)
    }
}
