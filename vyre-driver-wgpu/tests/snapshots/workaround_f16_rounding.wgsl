enable f16;

@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<i64>;
@group(0) @binding(2) 
var<storage, read_write> h: array<f16>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 256u);
    let _e15 = a[select(0u, _e6, _e10)];
    let v = select(0i, _e15, _e10);
    let _e28 = (_e6 < 256u);
    if _e28 {
        out[select(0u, _e6, _e28)] = (((bitcast<i64>(u64(bitcast<u32>(min(v, -(v))))) << 32u) >> 32u) << 31u);
    }
    let _e35 = (f32(v) * 0.33333334f);
    let _e36 = bitcast<u32>(_e35);
    let _e40 = ((_e36 >> 23u) & 255u);
    let _e46 = select(13u, (126u - _e40), (_e40 < 113u));
    let _e49 = select(_e46, 25u, (_e46 > 25u));
    let _e53 = ((_e36 & 8388607u) | 8388608u);
    let _e58 = (1u << (_e49 - 1u));
    let _e59 = (_e53 & ((1u << _e49) - 1u));
    let _e60 = (_e53 >> _e49);
    let _e84 = (_e6 < 256u);
    if _e84 {
        h[select(0u, _e6, _e84)] = f16(select(bitcast<f32>((bitcast<u32>(ldexp(f32(((_e60 + select(0u, 1u, ((_e59 > _e58) || ((_e59 == _e58) && ((_e60 & 1u) == 1u))))) << _e49)), (bitcast<i32>(_e40) - 150i))) | (_e36 & 2147483648u))), _e35, (_e40 == 255u)));
    }
}
