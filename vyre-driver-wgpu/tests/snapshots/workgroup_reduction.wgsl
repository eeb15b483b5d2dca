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

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 1024u);
    let _e30 = input[select(0u, _e15, _e25)];
    partial[vyre_local_id.x] = select(0u, _e30, _e25);
    workgroupBarrier();
    step_ = 0u;
    loop {
        let _e38 = step_;
        if !((_e38 < 6u)) {
            break;
        }
        let _e42 = step_;
        let half = (32u >> (_e42 & 31u));
        if (vyre_local_id.x < half) {
            let _e49 = partial[vyre_local_id.x];
            let _e50 = (vyre_local_id.x + half);
            let _e51 = (_e50 < 64u);
            let _e56 = partial[select(0u, _e50, _e51)];
            partial[vyre_local_id.x] = (_e49 + select(0u, _e56, _e51));
        }
        workgroupBarrier();
        continuing {
            let _e62 = step_;
            step_ = (_e62 + 1u);
        }
    }
    if (vyre_local_id.x != 0u) {
        return;
    }
    let _e70 = partial[0u];
    let _e71 = (vyre_workgroup_id.x < 16u);
    if _e71 {
        sums[select(0u, vyre_workgroup_id.x, _e71)] = _e70;
    }
}
