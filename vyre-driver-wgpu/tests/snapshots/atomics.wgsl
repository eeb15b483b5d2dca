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
    var local_1: u32;
    var local_2: u32;
    var local_3: u32;
    var local_4: u32;
    var local_5: u32;
    var local_6: u32;
    var local_7: u32;
    var local_8: u32;
    var local_9: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    local = 0u;
    {
        let _e30 = atomicAdd((&counters[0u]), _e15);
        local = _e30;
    }
    let old0_ = local;
    local_1 = 0u;
    {
        let _e37 = atomicSub((&counters[1u]), _e15);
        local_1 = _e37;
    }
    let old1_ = local_1;
    local_2 = 0u;
    {
        let _e44 = atomicMin((&counters[2u]), _e15);
        local_2 = _e44;
    }
    let old2_ = local_2;
    local_3 = 0u;
    {
        let _e51 = atomicMax((&counters[3u]), _e15);
        local_3 = _e51;
    }
    let old3_ = local_3;
    local_4 = 0u;
    {
        let _e58 = atomicAnd((&counters[4u]), _e15);
        local_4 = _e58;
    }
    let old4_ = local_4;
    local_5 = 0u;
    {
        let _e65 = atomicOr((&counters[5u]), _e15);
        local_5 = _e65;
    }
    let old5_ = local_5;
    local_6 = 0u;
    {
        let _e72 = atomicXor((&counters[6u]), _e15);
        local_6 = _e72;
    }
    let old6_ = local_6;
    local_7 = 0u;
    {
        let _e79 = atomicExchange((&counters[7u]), _e15);
        local_7 = _e79;
    }
    let old7_ = local_7;
    local_8 = 0u;
    {
        loop {
            let _e87 = atomicCompareExchangeWeak((&counters[8u]), 0u, _e15);
            local_8 = _e87.old_value;
            if (_e87.exchanged || (_e87.old_value != 0u)) {
                break;
            }
        }
    }
    let swapped = local_8;
    local_9 = 0u;
    {
        let _e99 = atomicAdd((&hits[0u]), 1u);
        local_9 = _e99;
    }
    let shared_old = local_9;
    let _e102 = (_e15 < 192u);
    if _e102 {
        olds[select(0u, _e15, _e102)] = (old0_ + swapped);
    }
    let _e108 = (_e15 + 64u);
    let _e112 = atomicLoad((&hits[0u]));
    let _e113 = (_e108 < 192u);
    if _e113 {
        olds[select(0u, _e108, _e113)] = _e112;
    }
    let _e119 = (_e15 + 128u);
    let _e120 = (_e119 < 192u);
    if _e120 {
        olds[select(0u, _e119, _e120)] = shared_old;
    }
}
