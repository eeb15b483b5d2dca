@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> sums: array<u32>;
var<workgroup> partial: array<u32, 64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var step_: u32;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 1024u);
    let _e15 = input[select(0u, _e6, _e10)];
    partial[vyre_local_id.x] = select(0u, _e15, _e10);
    workgroupBarrier();
    step_ = 0u;
    loop {
        let _e23 = step_;
        if !((_e23 < 6u)) {
            break;
        }
        let _e27 = step_;
        let half = (32u >> (_e27 & 31u));
        if (vyre_local_id.x < half) {
            let _e34 = partial[vyre_local_id.x];
            let _e35 = (vyre_local_id.x + half);
            let _e36 = (_e35 < 64u);
            let _e41 = partial[select(0u, _e35, _e36)];
            partial[vyre_local_id.x] = (_e34 + select(0u, _e41, _e36));
        }
        workgroupBarrier();
        continuing {
            let _e47 = step_;
            step_ = (_e47 + 1u);
        }
    }
    if (vyre_local_id.x != 0u) {
        return;
    }
    let _e55 = partial[0u];
    let _e56 = (vyre_workgroup_id.x < 16u);
    if _e56 {
        sums[select(0u, vyre_workgroup_id.x, _e56)] = _e55;
    }
}
