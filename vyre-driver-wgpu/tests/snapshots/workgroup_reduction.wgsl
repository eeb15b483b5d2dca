@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> sums: array<u32>;
var<workgroup> partial: array<u32, 64>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var step_: u32;
    var half: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 1024u);
    let _e30 = input[select(0u, _e15, _e25)];
    let _e33 = (vyre_local_id.x < 64u);
    if _e33 {
        partial[select(0u, vyre_local_id.x, _e33)] = select(0u, _e30, _e25);
    }
    storageBarrier();
    workgroupBarrier();
    step_ = 0u;
    loop {
        let _e41 = step_;
        if !((_e41 < 6u)) {
            break;
        }
        let _e45 = step_;
        half = (32u >> (_e45 & 31u));
        let _e50 = half;
        if (vyre_local_id.x < _e50) {
            let _e52 = (vyre_local_id.x < 64u);
            let _e57 = partial[select(0u, vyre_local_id.x, _e52)];
            let _e60 = half;
            let _e61 = (vyre_local_id.x + _e60);
            let _e62 = (_e61 < 64u);
            let _e67 = partial[select(0u, _e61, _e62)];
            let _e71 = (vyre_local_id.x < 64u);
            if _e71 {
                partial[select(0u, vyre_local_id.x, _e71)] = (select(0u, _e57, _e52) + select(0u, _e67, _e62));
            }
        }
        storageBarrier();
        workgroupBarrier();
        continuing {
            let _e76 = step_;
            step_ = (_e76 + 1u);
        }
    }
    if (vyre_local_id.x != 0u) {
        return;
    }
    let _e82 = (0u < 64u);
    let _e87 = partial[select(0u, 0u, _e82)];
    let _e90 = (vyre_workgroup_id.x < 16u);
    if _e90 {
        sums[select(0u, vyre_workgroup_id.x, _e90)] = select(0u, _e87, _e82);
    }
}
