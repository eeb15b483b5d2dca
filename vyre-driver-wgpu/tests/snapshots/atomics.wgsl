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
    local = 0u;
    {
        let _e30 = atomicAdd((&counters[0u]), _e15);
        local = _e30;
    }
    let _e31 = local;
    old0_ = _e31;
    local_1 = 0u;
    {
        let _e38 = atomicSub((&counters[1u]), _e15);
        local_1 = _e38;
    }
    let _e39 = local_1;
    old1_ = _e39;
    local_2 = 0u;
    {
        let _e46 = atomicMin((&counters[2u]), _e15);
        local_2 = _e46;
    }
    let _e47 = local_2;
    old2_ = _e47;
    local_3 = 0u;
    {
        let _e54 = atomicMax((&counters[3u]), _e15);
        local_3 = _e54;
    }
    let _e55 = local_3;
    old3_ = _e55;
    local_4 = 0u;
    {
        let _e62 = atomicAnd((&counters[4u]), _e15);
        local_4 = _e62;
    }
    let _e63 = local_4;
    old4_ = _e63;
    local_5 = 0u;
    {
        let _e70 = atomicOr((&counters[5u]), _e15);
        local_5 = _e70;
    }
    let _e71 = local_5;
    old5_ = _e71;
    local_6 = 0u;
    {
        let _e78 = atomicXor((&counters[6u]), _e15);
        local_6 = _e78;
    }
    let _e79 = local_6;
    old6_ = _e79;
    local_7 = 0u;
    {
        let _e86 = atomicExchange((&counters[7u]), _e15);
        local_7 = _e86;
    }
    let _e87 = local_7;
    old7_ = _e87;
    local_8 = 0u;
    {
        loop {
            let _e95 = atomicCompareExchangeWeak((&counters[8u]), 0u, _e15);
            local_8 = _e95.old_value;
            if (_e95.exchanged || (_e95.old_value != 0u)) {
                break;
            }
        }
    }
    let _e100 = local_8;
    swapped = _e100;
    local_9 = 0u;
    {
        let _e108 = atomicAdd((&hits[0u]), 1u);
        local_9 = _e108;
    }
    let _e109 = local_9;
    shared_old = _e109;
    let _e111 = old0_;
    let _e112 = swapped;
    let _e114 = (_e15 < 192u);
    if _e114 {
        olds[select(0u, _e15, _e114)] = (_e111 + _e112);
    }
    let _e120 = (_e15 + 64u);
    let _e124 = atomicLoad((&hits[0u]));
    let _e125 = (_e120 < 192u);
    if _e125 {
        olds[select(0u, _e120, _e125)] = _e124;
    }
    let _e131 = (_e15 + 128u);
    let _e132 = shared_old;
    let _e133 = (_e131 < 192u);
    if _e133 {
        olds[select(0u, _e131, _e133)] = _e132;
    }
}
