@group(0) @binding(0) 
var<storage, read_write> counters: array<atomic<u32>>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: u32;
    var local_1: u32;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    atomicAdd((&counters[0u]), _e6);
    atomicSub((&counters[1u]), _e6);
    atomicMin((&counters[2u]), _e6);
    atomicMax((&counters[3u]), _e6);
    atomicAnd((&counters[4u]), _e6);
    atomicOr((&counters[5u]), _e6);
    atomicXor((&counters[6u]), _e6);
    local = 0u;
    {
        let _e34 = atomicExchange((&counters[7u]), _e6);
        local = _e34;
    }
    local_1 = 0u;
    {
        loop {
            let _e41 = atomicCompareExchangeWeak((&counters[8u]), 0u, _e6);
            local_1 = _e41.old_value;
            if (_e41.exchanged || (_e41.old_value != 0u)) {
                break;
            }
        }
    }
    let _e47 = (_e6 < 16u);
    if _e47 {
        atomicAdd((&counters[select(0u, _e6, _e47)]), 1u);
    }
}
