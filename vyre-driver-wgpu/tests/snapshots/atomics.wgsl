@group(0) @binding(0) 
var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(1) 
var<storage, read_write> olds: array<u32>;
var<workgroup> hits: array<atomic<u32>, 1>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: u32;
    var local_1: u32;
    var local_2: u32;
    var local_3: u32;
    var local_4: u32;
    var local_5: u32;
    var local_6: u32;
    var local_7: u32;
    var local_8: u32;
    var local_9: u32;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    local = 0u;
    {
        let _e13 = atomicAdd((&counters[0u]), _e6);
        local = _e13;
    }
    let old0_ = local;
    local_1 = 0u;
    {
        let _e20 = atomicSub((&counters[1u]), _e6);
        local_1 = _e20;
    }
    let old1_ = local_1;
    local_2 = 0u;
    {
        let _e27 = atomicMin((&counters[2u]), _e6);
        local_2 = _e27;
    }
    let old2_ = local_2;
    local_3 = 0u;
    {
        let _e34 = atomicMax((&counters[3u]), _e6);
        local_3 = _e34;
    }
    let old3_ = local_3;
    local_4 = 0u;
    {
        let _e41 = atomicAnd((&counters[4u]), _e6);
        local_4 = _e41;
    }
    let old4_ = local_4;
    local_5 = 0u;
    {
        let _e48 = atomicOr((&counters[5u]), _e6);
        local_5 = _e48;
    }
    let old5_ = local_5;
    local_6 = 0u;
    {
        let _e55 = atomicXor((&counters[6u]), _e6);
        local_6 = _e55;
    }
    let old6_ = local_6;
    local_7 = 0u;
    {
        let _e62 = atomicExchange((&counters[7u]), _e6);
        local_7 = _e62;
    }
    let old7_ = local_7;
    local_8 = 0u;
    {
        loop {
            let _e70 = atomicCompareExchangeWeak((&counters[8u]), 0u, _e6);
            local_8 = _e70.old_value;
            if (_e70.exchanged || (_e70.old_value != 0u)) {
                break;
            }
        }
    }
    let swapped = local_8;
    local_9 = 0u;
    {
        let _e82 = atomicAdd((&hits[0u]), 1u);
        local_9 = _e82;
    }
    let shared_old = local_9;
    let _e85 = (_e6 < 192u);
    if _e85 {
        olds[select(0u, _e6, _e85)] = (old0_ + swapped);
    }
    let _e91 = (_e6 + 64u);
    let _e95 = atomicLoad((&hits[0u]));
    let _e96 = (_e91 < 192u);
    if _e96 {
        olds[select(0u, _e91, _e96)] = _e95;
    }
    let _e102 = (_e6 + 128u);
    let _e103 = (_e102 < 192u);
    if _e103 {
        olds[select(0u, _e102, _e103)] = shared_old;
    }
}
