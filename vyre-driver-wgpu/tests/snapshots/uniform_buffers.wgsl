@group(0) @binding(0) 
var<uniform> scale: array<vec4<f32>, 2>;
@group(0) @binding(1) 
var<storage> input: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = input[select(0u, _e15, _e25)];
    let _e34 = (0u < 6u);
    let _e36 = select(0u, 0u, _e34);
    let _e43 = scale[(_e36 / 4u)][(_e36 % 4u)];
    let _e51 = (_e15 % select(6u, 1u, (6u == 0u)));
    let _e52 = (_e51 < 6u);
    let _e54 = select(0u, _e51, _e52);
    let _e61 = scale[(_e54 / 4u)][(_e54 % 4u)];
    let _e65 = (_e15 < 64u);
    if _e65 {
        out[select(0u, _e15, _e65)] = fma(select(0f, _e30, _e25), select(0f, _e43, _e34), select(0f, _e61, _e52));
    }
}
