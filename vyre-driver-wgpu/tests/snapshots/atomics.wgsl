@group(0) @binding(0) 
var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(1) 
var<storage, read_write> olds: array<u32>;
var<workgroup> hits: array<atomic<u32>, 1>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: u32;
    var old0_: u32;
    var local_1: u32;
    var old1_: u32;
    var local_2: u32;
    var old2_: u32;
    var local_3: u32;
    var old3_: u32;
    var local_4: u32;
    var old4_: u32;
    var local_5: u32;
    var old5_: u32;
    var local_6: u32;
    var old6_: u32;
    var local_7: u32;
    var old7_: u32;
    var local_8: u32;
    var swapped: u32;
    var local_9: u32;
    var shared_old: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e26 = (0u < 9u);
    local = 0u;
    if _e26 {
        let _e33 = atomicAdd((&counters[select(0u, 0u, _e26)]), _e15);
        local = _e33;
    }
    let _e34 = local;
    old0_ = _e34;
    let _e37 = (1u < 9u);
    local_1 = 0u;
    if _e37 {
        let _e44 = atomicSub((&counters[select(0u, 1u, _e37)]), _e15);
        local_1 = _e44;
    }
    let _e45 = local_1;
    old1_ = _e45;
    let _e48 = (2u < 9u);
    local_2 = 0u;
    if _e48 {
        let _e55 = atomicMin((&counters[select(0u, 2u, _e48)]), _e15);
        local_2 = _e55;
    }
    let _e56 = local_2;
    old2_ = _e56;
    let _e59 = (3u < 9u);
    local_3 = 0u;
    if _e59 {
        let _e66 = atomicMax((&counters[select(0u, 3u, _e59)]), _e15);
        local_3 = _e66;
    }
    let _e67 = local_3;
    old3_ = _e67;
    let _e70 = (4u < 9u);
    local_4 = 0u;
    if _e70 {
        let _e77 = atomicAnd((&counters[select(0u, 4u, _e70)]), _e15);
        local_4 = _e77;
    }
    let _e78 = local_4;
    old4_ = _e78;
    let _e81 = (5u < 9u);
    local_5 = 0u;
    if _e81 {
        let _e88 = atomicOr((&counters[select(0u, 5u, _e81)]), _e15);
        local_5 = _e88;
    }
    let _e89 = local_5;
    old5_ = _e89;
    let _e92 = (6u < 9u);
    local_6 = 0u;
    if _e92 {
        let _e99 = atomicXor((&counters[select(0u, 6u, _e92)]), _e15);
        local_6 = _e99;
    }
    let _e100 = local_6;
    old6_ = _e100;
    let _e103 = (7u < 9u);
    local_7 = 0u;
    if _e103 {
        let _e110 = atomicExchange((&counters[select(0u, 7u, _e103)]), _e15);
        local_7 = _e110;
    }
    let _e111 = local_7;
    old7_ = _e111;
    let _e115 = (8u < 9u);
    local_8 = 0u;
    if _e115 {
        loop {
            let _e122 = atomicCompareExchangeWeak((&counters[select(0u, 8u, _e115)]), 0u, _e15);
            local_8 = _e122.old_value;
            if (_e122.exchanged || (_e122.old_value != 0u)) {
                break;
            }
        }
    }
    let _e127 = local_8;
    swapped = _e127;
    let _e131 = (0u < 1u);
    local_9 = 0u;
    if _e131 {
        let _e138 = atomicAdd((&hits[select(0u, 0u, _e131)]), 1u);
        local_9 = _e138;
    }
    let _e139 = local_9;
    shared_old = _e139;
    let _e141 = old0_;
    let _e142 = swapped;
    let _e144 = (_e15 < 192u);
    if _e144 {
        olds[select(0u, _e15, _e144)] = (_e141 + _e142);
    }
    let _e150 = (_e15 + 64u);
    let _e152 = (0u < 1u);
    let _e157 = atomicLoad((&hits[select(0u, 0u, _e152)]));
    let _e160 = (_e150 < 192u);
    if _e160 {
        olds[select(0u, _e150, _e160)] = select(0u, _e157, _e152);
    }
    let _e166 = (_e15 + 128u);
    let _e167 = shared_old;
    let _e168 = (_e166 < 192u);
    if _e168 {
        olds[select(0u, _e166, _e168)] = _e167;
    }
}
