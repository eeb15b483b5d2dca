@group(0) @binding(0) 
var<storage, read_write> counters: array<atomic<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: u32;
    var local_1: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    atomicAdd((&counters[0u]), _e15);
    atomicSub((&counters[1u]), _e15);
    atomicMin((&counters[2u]), _e15);
    atomicMax((&counters[3u]), _e15);
    atomicAnd((&counters[4u]), _e15);
    atomicOr((&counters[5u]), _e15);
    atomicXor((&counters[6u]), _e15);
    local = 0u;
    {
        let _e49 = atomicExchange((&counters[7u]), _e15);
        local = _e49;
    }
    local_1 = 0u;
    {
        loop {
            let _e57 = atomicCompareExchangeWeak((&counters[8u]), 0u, _e15);
            local_1 = _e57.old_value;
            if (_e57.exchanged || (_e57.old_value != 0u)) {
                break;
            }
        }
    }
    let _e64 = (_e15 < 16u);
    if _e64 {
        atomicAdd((&counters[select(0u, _e15, _e64)]), 1u);
    }
}
