//! Differential tests on small snippets, many of them corner cases probed while writing the
//! assembler: for each snippet (assembled with and without preserved numeric ids), either
//! spirv-as and we both accept it and write the same words (generator word aside), or both
//! reject it and report the same line and column.

use tangle_oracle::{require, scratch_dir, Tool};
use tangle_spirv::asm::{assemble, AsmOptions};

const SNIPPETS: &[&str] = &[
    // Id numbering: first appearance, result type before result.
    "%a = OpUndef %t\n",
    "%5 = OpTypeVoid\n%a = OpTypeFunction %5\n%b = OpTypeInt 32 0\n%1 = OpTypeFloat 32\n%7 = OpTypeBool\n",
    "%2 = OpTypeVoid\n%x = OpTypeBool\n%y = OpTypeInt 32 0\n%3 = OpTypeInt 16 0\n",
    "%x = OpTypeBool\n%4294967296 = OpTypeInt 32 0\n",
    "%4294967295 = OpTypeVoid\n",
    "%0 = OpTypeVoid\n",
    "OpName %x \"%7\"\n%a = OpTypeBool\n",
    "%5 = OpTypeVoid\n%05 = OpTypeBool\n",
    "%a = OpTypeVoid\n%a = OpTypeBool\n",
    "%u = OpTypeVoid\n%a = OpUndef %u\n%a = OpUndef %u\n",
    "%t = OpTypeVoid\n%a = OpUndef %t\n%a = OpTypeBool\n",
    "%t = OpTypeVoid\n%t = OpUndef %t\n",
    "OpDecorate %x Location 3\n%x = OpTypeInt 32 0\n",
    "%_a = OpTypeVoid\n",
    "%010 = OpTypeVoid\n",
    "%0x10 = OpTypeVoid\n",
    "%08 = OpTypeVoid\n",
    "%a = OpTypeBool\n%08 = OpTypeVoid\n%1 = OpTypeInt 32 0\n",
    "%0X1f = OpTypeVoid\n",
    "%00 = OpTypeVoid\n",
    "%0x = OpTypeVoid\n",
    "%0xffffffff = OpTypeVoid\n",
    "%0x100000000 = OpTypeVoid\n%1 = OpTypeBool\n",
    "%a = OpTypeBool\n%b = OpTypeVoid\n%2 = OpTypeInt 32 0\n%02 = OpTypeFloat 32\n",
    // Literals for OpConstant by type.
    "%u = OpTypeInt 32 1\n%e = OpConstant %u 0xffffffff\n%f = OpConstant %u -0x1\n%g = OpConstant %u -2147483648\n%h = OpConstant %u +5\n",
    "%u = OpTypeInt 16 1\n%c = OpConstant %u -1\n%d = OpConstant %u 0xffff\n%e = OpConstant %u 0x8000\n",
    "%u = OpTypeInt 16 1\n%e = OpConstant %u 0x10000\n",
    "%u = OpTypeInt 16 1\n%e = OpConstant %u 32768\n",
    "%u = OpTypeInt 16 0\n%c = OpConstant %u 65535\n%d = OpConstant %u 65536\n",
    "%u = OpTypeInt 8 1\n%c = OpConstant %u -128\n%d = OpConstant %u 127\n",
    "%u = OpTypeInt 64 1\n%c = OpConstant %u -2\n%d = OpConstant %u 0x123456789\n",
    "%u = OpTypeInt 64 0\n%c = OpConstant %u 18446744073709551615\n",
    "%u = OpTypeInt 32 0\n%c = OpConstant %u -1\n",
    "%u = OpTypeInt 32 0\n%e = OpConstant %u 0XFF\n%f = OpConstant %u 010\n",
    "%u = OpTypeInt 32 0\n%g = OpConstant %u 1e3\n",
    "%u = OpTypeInt 32 0\n%j = OpConstant %u 5u\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 1.5\n%d = OpConstant %u -0x1.8p+1\n%e = OpConstant %u 3\n",
    "%u = OpTypeFloat 32\n%f = OpConstant %u 0x7f800000\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 0x1p+128\n%d = OpConstant %u -0x1.8p+128\n%e = OpConstant %u 0x1.000002p+128\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 0x1.8p+200\n%d = OpConstant %u 0x1.8p+129\n%e = OpConstant %u 0x1.8p-140\n%g = OpConstant %u 0x1p1\n%h = OpConstant %u 0x.8p1\n%i = OpConstant %u 0x1.p1\n%j = OpConstant %u 0X1p1\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 0x1.ffffffp+0\n%d = OpConstant %u 0x1p+200\n%e = OpConstant %u 0x1p-200\n%f = OpConstant %u 0x0.8p+0\n%g = OpConstant %u 0x10p0\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 0x1p-149\n%d = OpConstant %u 0x1p-150\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 1e40\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 1e-50\n%d = OpConstant %u 1E2\n%e = OpConstant %u -.5e-1\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u inf\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 0x1P+1\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 1.5f\n",
    "%u = OpTypeFloat 32\n%c = OpConstant %u 0.1\n%d = OpConstant %u 16777217\n%e = OpConstant %u 1.0000000596046448\n",
    "%u = OpTypeFloat 16\n%c = OpConstant %u 1.5\n%d = OpConstant %u 0x1.8p+1\n%e = OpConstant %u 65504\n%f = OpConstant %u 65520\n",
    "%u = OpTypeFloat 16\n%c = OpConstant %u 70000\n",
    "%u = OpTypeFloat 16\n%c = OpConstant %u 0x1p+16\n%d = OpConstant %u 0x1.554p-2\n%e = OpConstant %u 0x1p-24\n",
    "%u = OpTypeFloat 64\n%c = OpConstant %u 1.5\n%d = OpConstant %u 0.1\n%e = OpConstant %u 0x1.8p+1024\n%f = OpConstant %u 0x1.0000000000001p+0\n",
    "%b = OpTypeBool\n%c = OpConstant %b 1\n",
    "%b = OpTypeFloat 16 BFloat16KHR\n%c = OpTypeFloat 8 Float8E4M3EXT\n%d = OpTypeFloat 8 Float8E5M2EXT\n",
    "%b = OpTypeFloat 32 Foo\n",
    "%b = OpTypeFloat 32 0\n",
    "%b = OpTypeFloat 32\n%x OpTypeBool\n",
    "%c = OpConstant %b 1\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s 0\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s 1\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s -2\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s 0x0\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s 0x1\n",
    "%s = OpTypeInt 0 1\n%c = OpConstant %s -0\n",
    "%s = OpTypeInt 0 0\n%c = OpConstant %s 0\n",
    "%s = OpTypeInt 0 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeInt 0 0\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 1 1\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 1 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeInt 33 1\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 33 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeInt 48 1\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 48 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeInt 65 1\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 65 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeInt 128 1\n%c = OpConstant %s -1\n",
    "%s = OpTypeInt 128 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeFloat 0\n%c = OpConstant %s 1\n",
    "%s = OpTypeFloat 8\n%c = OpConstant %s 1\n",
    "%s = OpTypeFloat 24\n%c = OpConstant %s 1\n",
    "%s = OpTypeFloat 128\n%c = OpConstant %s 1\n",
    "%f = OpTypeFloat 32 !7\n%c = OpConstant %f 1.5\n",
    // OpSwitch literal widths.
    "%u = OpTypeInt 64 0\n%s = OpUndef %u\nOpSwitch %s %d 1 %a 0x100000000 %b\n",
    "%u = OpTypeInt 16 1\n%s = OpUndef %u\nOpSwitch %s %d -1 %a\n",
    "%c = OpUndef %b\nOpSwitch %c %d 1 %e\n",
    "%b = OpTypeFloat 32\n%c = OpUndef %b\nOpSwitch %c %d 1 %e\n",
    "%u = OpTypeInt 32 0\n%s = OpUndef %u\nOpSwitch %s %d\n",
    // Masks and enumerant parameters.
    "OpLoopMerge %a %b Unroll|DependencyLength|MinIterations 3 4\n",
    "OpLoopMerge %a %b 0x9 3\n",
    "OpLoopMerge %a %b DontUnroll|0x1\n",
    "OpLoopMerge %a %b None|Unroll\n",
    "OpLoopMerge %a %b Unroll | DontUnroll\n",
    "OpLoopMerge %a %b DependencyLength\n",
    "%x = OpLoad %t %p Aligned|Volatile 4\n",
    "%x = OpLoad %t %p MakePointerVisible|NonPrivatePointer %s\n",
    "OpExecutionMode %m LocalSize 1 2 3\nOpExecutionMode %m MaximallyReconvergesKHR\nOpExecutionModeId %m LocalSizeId %a %b %c\n",
    "OpDecorate %x SpecId 7\nOpDecorate %x BuiltIn SubgroupEqMask\nOpMemberDecorate %s 2 Offset 16\n",
    "OpDecorate %x LinkageAttributes \"name\" Export\n",
    "OpDecorate %x BuiltIn Nope\n",
    "OpCapability 1\n",
    "OpCapability Shader OpCapability\n",
    // OpSpecConstantOp and OpExtInst.
    "%u = OpTypeInt 32 0\n%c = OpSpecConstantOp %u IAdd %a %b\n%e = OpSpecConstantOp %u CompositeExtract %a 1 2\n",
    "%u = OpTypeInt 32 0\n%d = OpSpecConstantOp %u 128 %a %b\n",
    "%u = OpTypeInt 32 0\n%d = OpSpecConstantOp %u OpIAdd %a %b\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %t %g FAbs %y\n%z = OpExtInst %t %g FClamp %y %a %b\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%z = OpExtInst %t %g 4 %y\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %t %g FAbs\n",
    "%x = OpExtInst %t %g FAbs %a\n",
    "%g = OpExtInstImport \"Foo.bar\"\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g 0x23 %a\n",
    "%g = OpExtInstImport \"NonSemantic.Foo\"\n%y = OpExtInst %t %g 35 %a %b\n%z = OpExtInst %t %g 1\n",
    "%g = OpExtInstImport \"NonSemantic.Foo\"\n%x = OpExtInst %t %g 5 %a 7\n",
    "%g = OpExtInstImport \"NonSemantic.Foo\"\n%x = OpExtInst %t %g Bar %a\n",
    "%g = OpExtInstImport \"NonSemantic.\"\n%y = OpExtInst %t %g 2 %a\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%x = OpExtInst %t %g DebugSource %a\n%y = OpExtInst %t %g 35 %a\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g DebugSource\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g DebugSource %a %b %c\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g DebugTypeEnum %a %b %c %d %e %f %g %h %i\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g 200 %a 5\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g DebugScope %a \"x\"\n",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%y = OpExtInst %t %g DebugNoScope\n%z = OpExtInst %t %g DebugExpression\n",
    "%g = OpExtInstImport \"NonSemantic.DebugPrintf\"\n%x = OpExtInst %t %g DebugPrintf %a %b\n",
    // Strings, comments, words.
    "OpName %x \"a\\\"b\\\\c\"\n",
    "OpName %x \"ab\\nc\"\nOpName %y \"\"\nOpName %z \"four\"\n",
    "OpName %x \"abc\n",
    "OpName %x \"ab\"c\n",
    "OpName %x main\n",
    "OpSource GLSL 450 %f \"abc\"\nOpSourceExtension \"x\" ; comment\n   OpCapability   Shader;c\n",
    "OpCapability\tShader\x0bOpCapability Shader\n",
    "OpCapability Sh\\ ader\n",
    "OpName %x \"caf\u{e9} \u{1f600}\"\n",
    // Instruction structure.
    "OpMemoryModel Logical\n",
    "OpMemoryModel Logical\nOpCapability Shader\n",
    "OpMemoryModel Logical GLSL450 GLSL450\n",
    "OpFoo\n",
    "%x = OpCapability Shader\n",
    "OpTypeVoid\n",
    "%a=OpTypeVoid\n%b= OpTypeBool\n",
    "%a = OpTypeVoid\n%b\n",
    "%a = Foo\n",
    "%a.b = OpTypeVoid\n",
    "% = OpTypeVoid\n",
    "OpDecorate x Location 1\n",
    "OpDecorate %x Offset -1\n",
    "OpDecorate %x Offset 0x10\n",
    "OpDecorate %x Offset 4294967296\n",
    "OpDecorate %x Offset 1.5\n",
    "Shader\n",
    "",
    "; only a comment",
    "OpBranchConditional %a %b %c\n%x % OpLabel\n",
    "OpBranchConditional %a %b %c %x\n",
    "OpBranchConditional %a %b %c 1 2 %x\n",
    "OpEntryPoint GLCompute %main \"main\" %a\n%x % OpLabel\n",
    "OpEntryPoint GLCompute %main \"main\" %a foo\n",
    "OpSource GLSL 450 %x %y\n",
    "OpSource GLSL 450 %x foo\n",
    "OpSource GLSL 450 foo\n",
    "OpSource GLSL 450 %x \"abc\n",
    "OpSource GLSL 450 %x a\"b\"\n",
    "%x = OpLoad %t %p Foo\n",
    "%x = OpLoad %t %p %q\n",
    "OpExecutionMode %m LocalSize 1 2 %x\n",
    "OpMemberName %s 0 %x\n",
    "%x = OpCompositeExtract %t %c 1 foo\n",
    "%x = OpCompositeExtract %t %c foo\n",
    "%x = OpVectorShuffle %t %a %b 0 0xFFFFFFFF 1\n",
    "OpBranchConditional %a %b %c abc\n",
    "OpBranchConditional %a %b %c 1.5\n",
    "OpBranchConditional %a %b %c -1\n",
    "OpBranchConditional %a %b %c \"s\"\n",
    "OpBranchConditional %a %b %c 0x1g\n",
    "OpBranchConditional %a %b %c 1e3\n",
    "OpBranchConditional %a %b %c +5\n",
    "OpBranchConditional %a %b %c 08\n",
    "OpBranchConditional %a %b %c 99999999999\n",
    "OpBranchConditional %a %b %c 1.\n",
    "OpBranchConditional %a %b %c -\n",
    "OpBranchConditional %a %b %c 0x\n",
    "OpBranchConditional %a %b %c 0x1p3\n",
    "OpBranchConditional %a %b %c 5u\n",
    "OpBranchConditional %a %b %c 0X10\n",
    "OpBranchConditional %a %b %c %x=\n",
    "OpBranchConditional %a %b %c !5\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d abc %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d 1.5 %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d 99999999999 %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d - %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d -1 %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d 0x1g %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d 0xffffffff %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d 2147483648 %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d \"s\" %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d % %x\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d !7 %x\n",
    "%i = OpTypeInt 32 0\n%s = OpUndef %i\nOpSwitch %s %d -1 %x\n",
    "%i = OpTypeInt 32 0\n%s = OpUndef %i\nOpSwitch %s %d -0 %x\n",
    "%i = OpTypeInt 32 0\n%s = OpUndef %i\nOpSwitch %s %d abc %x\n",
    "%i = OpTypeInt 32 0\n%s = OpUndef %i\nOpSwitch %s %d 4294967296 %x\n",
    "%i = OpTypeInt 32 0\n%s = OpUndef %i\nOpSwitch %s %d - %x\n",
    "%i = OpTypeInt 64 1\n%s = OpUndef %i\nOpSwitch %s %d 18446744073709551615 %x\n",
    "%i = OpTypeInt 64 0\n%s = OpUndef %i\nOpSwitch %s %d 18446744073709551616 %x\n",
    "OpSource GLSL 450 %f \"line1\nline2\nline3\"\nOpCapability Shader\n",
    "%a = OpPhi %t %b %c %d\n",
    "%a = OpPhi %t %b\n",
    "%a = OpPhi %t %b %c %d\nOpReturn\n",
    "%i = OpTypeInt 32 1\n%s = OpUndef %i\nOpSwitch %s %d 1\nOpReturn\n",
    "OpGroupMemberDecorate %g %a 1 %b\n",
    "OpGroupMemberDecorate %g %a 1 %b foo\n",
    "%a = OpPhi %t %b foo\n",
    "%a = OpPhi %t %b %c %d %e\n= %f\n",
    "%a = OpPhi %t %b %c %d\n= %f\n",
    "%a = OpPhi %t %b %c\n%d = OpUndef %t\n",
    "OpEntryPoint GLCompute %main \"main\" %a %b = %c\n",
    "OpEntryPoint GLCompute %main \"main\" %a Op\n",
    "OpEntryPoint GLCompute %main \"main\" %a Opx\n",
    "OpEntryPoint GLCompute %main \"main\" %a Op1\n",
    "Opx\n",
    "Op\n",
    "%a = Opx\n",
    "%a = Op\n",
    "OpDecorate %x BuiltIn LocalInvocationIndex(\n",
    "OpCapability Shader(x\n",
    "OpCapability Shader ,\n",
    "OpCapability (Shader\n",
    "OpName %x \"a(b,c)\"\n",
    "%a(b = OpTypeVoid\n",
    "(\n",
    "OpName %x \"ab\"(\n",
    "OpName %x \\(\n",
    "OpMemoryModel Logical, GLSL450\n",
    "%a = OpTypeVoid\n%b = OpTypeFunction %a(\n",
    "OpBranchConditional %a %b %c )\n",
    "OpCapability !1 ,\n",
    "!1 (\n",
    "%a = OpPhi %t %b,%c\n",
    "%min = OpExtInst %t %u\nOpReturn\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%min = OpExtInst %t %g\nOpReturn\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%g = OpExtInstImport \"GLSL.std.450\"\n",
    "%g = OpTypeVoid\n%g = OpExtInstImport \"GLSL.std.450\"\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%g = OpTypeVoid\n",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%g = OpExtInstImport \"Foo\"\n",
    "%a = OpConstant !0 100\n%b = OpUndef %a\n",
    "%a = OpConstant !0 %c\n%b = OpUndef %a\n",
    "%a = OpUndef !7\n",
    "%a = OpTypeInt !32 0\n%b = OpConstant %a 5\n",
    "OpCapability !1 1.5\n",
    "OpCapability !1 1e3\n",
    "OpCapability !1 -0.5\n",
    "OpCapability !1 0x1p+128\n",
    "OpCapability !1 .5\n",
    "OpCapability !1 5.\n",
    "OpCapability !1 1E2\n",
    "OpCapability !1 -2147483648\n",
    "OpCapability !1 4294967295\n",
    "OpCapability !1 -2147483649\n",
    "OpCapability !1 0777\n",
    "OpCapability !1 08\n",
    "OpCapability !1 +5\n",
    "OpCapability !1 +1.5\n",
    "OpCapability !1 1e-50\n",
    "OpCapability !1 3.4e38\n",
    "OpCapability !1 3.5e38\n",
    "OpCapability !1 0X10\n",
    "OpCapability !1 1.5e-50\n",
    "OpCapability !1 1.0e-45\n",
    "OpCapability !1 -0.0\n",
    "OpCapability !1 1.5.5\n",
    "OpCapability !1 1.5x\n",
    "%rt = OpTypeRuntimeArray %v\n%Out = OpTypeStruct %rt\n%Out = OpTypeStruct %rt\n %p = OpTypePointer StorageBuffer %Out\n",
    "%a = OpTypeStruct\n%a = OpTypeStruct ; c\n\n  ; d\n",
    "%a = OpTypeVoid\n%a = OpTypeVoid ; c\n\n  OpNop\n",
    "OpCapability !1 -0x1.8p-149\n",
    "OpCapability !1 0x1.8P+1\n",
    "OpCapability !1 0x1.ffffffp+0\n",
    "OpCapability !1 0x1.p+128\n",
    "OpCapability !1 0x.8p1\n",
    "OpCapability !1 1.5e-50x\n",
    "%f = OpTypeFloat 32 !0\n%c = OpConstant %f 1.5\n",
    "%f = OpTypeFloat 16 !0\n%c = OpConstant %f 1.5\n",
    "%f = OpTypeFloat 16 BFloat16KHR\n%c = OpConstant %f 1.5\n%d = OpConstant %f 0x1.8p+1\n%e = OpConstant %f 1.00390625\n%g = OpConstant %f 1.01171875\n%h = OpConstant %f -0x1.fep+127\n%i = OpConstant %f 0x1p-133\n%j = OpConstant %f -3.4e38\n",
    "%f = OpTypeFloat 16 BFloat16KHR\n%c = OpConstant %f 3.5e38\n",
    "%f = OpTypeInt !32 1\n%c = OpConstant %f -1\n",
    "%f = OpTypeInt 32 !1\n%c = OpConstant %f -1\n",
    // Immediates.
    "!0x00020011 !1\n",
    "OpCapability !1\n",
    "OpExecutionMode %m !17 1 2 3\n",
    "OpCapability !1 %x 1.5 \"ab\" -1 0x10\nOpCapability Shader\n",
    "OpCapability !1 Shader\n",
    "OpCapability !1 0x100000000\n",
    "!0x00020011 %x 5\n",
    "%x = !5\n",
    "!5 OpCapability Shader\n",
    "%t = OpTypeInt 32 0\n%c = OpConstant %t !5\n",
    "!-1\n",
    "!abc\n",
    "!\n",
    "OpCapability Shader !5\n",
    "OpCapability Shader\n!0x00020011 !1\n",
    "%x = OpLoad %t %p !2 4\n",
    "%x = OpLoad %t %p Aligned !4 5\n",
    "OpMemoryModel Logical !5 3\n",
    // The grammar of rspirv 0.13 / spirv 0.4 against spirv-as 2025.5. Opcode aliases, which
    // rspirv's table no longer lists.
    "OpDecorateStringGOOGLE %a UserSemantic \"x\"\n%r = OpSDotKHR %t %a %b\n",
    "OpLoopMerge %a %b InitiationIntervalINTEL 3\nOpLoopMerge %a %b MaxConcurrencyALTERA 4\n",
    "%a = OpTypeTaskSequenceINTEL\n%b = OpTypeTaskSequenceALTERA\n",
    "%a = OpTypeCooperativeVectorNV %b %c\n%r = OpGroupNonUniformPartitionNV %t %v\n",
    // Newer than spirv-as: refused, as by spirv-as.
    "%a = OpTypeVectorIdEXT %b %c\n",
    "%r = OpGroupNonUniformPartitionEXT %t %v\n",
    "%a = OpTypeBufferEXT StorageBuffer\n",
    "OpCapability LongVectorEXT\n",
    "OpDecorate %a ArrayStrideIdEXT %b\n",
    "OpDecorate %a BuiltIn SamplerHeapEXT\n",
    "%r = OpGroupIAdd %t %s PartitionedReduceEXT %v\n",
    // Gone from the grammar, and unknown to spirv-as.
    "OpInitializeNodePayloadsAMDX %a %b %c %d\n",
    // Operands that the newer grammar corrected.
    "%a = OpAsmTargetINTEL \"x\"\n%r = OpFPGARegINTEL %t %a\n",
    "%r = OpFixedSqrtINTEL %t %a 1 2 3 4 5\n",
    "%r = OpArbitraryFloatPowNINTEL %t %a 1 %b 1 2 3 4 5\n",
    // Enumerant parameters from the grammar.
    "OpDecorate %a BankBitsINTEL 1 2 3\nOpDecorate %a BankBitsINTEL 1\nOpNop\n",
    "OpDecorate %a BankBitsINTEL\nOpNop\n",
    "OpDecorate %a FPMaxErrorDecorationINTEL 1.5\nOpDecorate %a FPMaxErrorDecorationINTEL 1\n",
    "OpDecorate %a PayloadNodeNameAMDX %b\n",
    "OpDecorate %a PayloadNodeNameAMDX \"x\"\n",
    "OpDecorate %a StridesizeINTEL 1\nOpDecorate %a WordsizeINTEL 2\n",
    "OpExecutionMode %f FPFastMathDefault %a %b\nOpExecutionMode %f TileShadingRateQCOM 1 2 3\n",
    "OpExecutionMode %f NamedMaximumRegistersINTEL AutoINTEL\nOpExecutionMode %f MaximumRegistersIdINTEL %a\n",
    // Masks the older grammar lacked.
    "%r = OpCooperativeMatrixReduceNV %t %m Row|2x2 %f\n",
    "%r = OpCooperativeMatrixReduceNV %t %m None %f\n",
    "%r = OpTensorReadARM %t %a %b OutOfBoundsValueARM|MakeElementVisibleARM %x %y\n",
    "%r = OpTensorReadARM %t %a %b NoneARM\n",
    "%r = OpCooperativeMatrixLoadTensorNV %t %p %o %tl Aligned 4 TensorView|DecodeFunc %x %y\n",
    // A required MemoryAccess is one name for spirv-as, not a `|` list.
    "%r = OpCooperativeMatrixLoadTensorNV %t %p %o %tl Aligned|Volatile 4 TensorView %x\n",
    "OpCooperativeMatrixStoreTensorNV %p %o %tl Volatile|Nontemporal TensorView %x\n",
    "%r = OpRawAccessChainNV %t %a %b %c %d RobustnessPerElementNV\n",
    "%r = OpSubgroupMatrixMultiplyAccumulateINTEL %t %a %b %c %d MatrixATF32INTEL|MatrixBPackedBFloat16INTEL\n",
    // Which opcodes declare a type.
    "%a = OpTypeVoid\n%a = OpTypeBufferSurfaceINTEL ReadOnly\n",
    "%a = OpTypeVoid\n%a = OpTypeHitObjectEXT\n",
    // `Dim` as the grammar spells it.
    "%t = OpTypeFloat 32\n%i = OpTypeImage %t 2D 0 0 0 1 Unknown\n%j = OpTypeImage %t SubpassData 0 0 0 2 Unknown\n%k = OpTypeImage %t Cube 0 0 0 1 Rgba8 ReadOnly\n",
    "%t = OpTypeFloat 32\n%i = OpTypeImage %t Dim2D 0 0 0 1 Unknown\n",
];

/// `Ok(words)` or `Err((line, column))` from spirv-as's `error: L: C: ...` line.
fn spirv_as(
    tool: &tangle_oracle::Oracle,
    dir: &std::path::Path,
    text: &str,
    preserve: bool,
) -> Result<Vec<u32>, (u32, u32, String)> {
    let src = dir.join("in.spvasm");
    let out = dir.join("out.spv");
    std::fs::write(&src, text).unwrap();
    let _ = std::fs::remove_file(&out);
    let mut args = vec![
        src.display().to_string(),
        "-o".to_owned(),
        out.display().to_string(),
    ];
    if preserve {
        args.push("--preserve-numeric-ids".to_owned());
    }
    let res = tool.run(&args);
    if res.status.success() {
        let bytes = std::fs::read(&out).unwrap();
        return Ok(bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect());
    }
    let msg = String::from_utf8_lossy(&res.stderr).into_owned();
    let pos = msg
        .strip_prefix("error: ")
        .and_then(|m| {
            let mut parts = m.splitn(3, ':');
            let line = parts.next()?.trim().parse().ok()?;
            let col = parts.next()?.trim().parse().ok()?;
            Some((line, col))
        })
        .unwrap_or((0, 0));
    Err((pos.0, pos.1, msg))
}

/// Snippets where we report an error at a different place than spirv-as, on purpose.
/// spirv-as reports a malformed *result* id at the end of its instruction; we point at the id.
const POSITION_DIFFERS: &[&str] = &["%a.b = OpTypeVoid\n", "% = OpTypeVoid\n"];

#[test]
fn snippets_match_spirv_as_words_and_error_positions() {
    let Some(tool) = require(
        Tool::SpirvAs,
        "snippets_match_spirv_as_words_and_error_positions",
    ) else {
        return;
    };
    let dir = scratch_dir();
    let mut failures = Vec::new();
    for text in SNIPPETS {
        for preserve in [false, true] {
            let opts = AsmOptions {
                preserve_numeric_ids: preserve,
                ..AsmOptions::default()
            };
            let ours = assemble(text, opts);
            let theirs = spirv_as(&tool, dir.path(), text, preserve);
            let verdict = match (&ours, &theirs) {
                (Ok(a), Ok(b)) => {
                    let same = a.len() == b.len()
                        && a.iter()
                            .zip(b)
                            .enumerate()
                            .all(|(i, (x, y))| i == 2 || x == y);
                    (!same).then(|| format!("words differ:\n ours   {a:08x?}\n theirs {b:08x?}"))
                }
                (Err(e), Err((line, col, _))) => ((e.line, e.column) != (*line, *col)
                    && !POSITION_DIFFERS.contains(text))
                .then(|| {
                    format!(
                        "ours at {}:{} ({e}), spirv-as at {line}:{col}",
                        e.line, e.column
                    )
                }),
                (Ok(_), Err((_, _, msg))) => Some(format!("we accept, spirv-as rejects: {msg}")),
                (Err(e), Ok(_)) => Some(format!("we reject ({e}), spirv-as accepts")),
            };
            if let Some(v) = verdict {
                failures.push(format!("{text:?} (preserve ids: {preserve}): {v}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A word for an operand of `kind` in [`every_opcode_matches_spirv_as`], with the
/// parameters of the enumerant it names. Ids are numbered by `next_id`.
fn sample_operand(
    kind: rspirv::grammar::OperandKind,
    next_id: &mut impl FnMut() -> String,
) -> String {
    use rspirv::grammar::OperandKind as K;
    match kind {
        K::IdResultType => "%int".to_owned(),
        K::IdRef | K::IdScope | K::IdMemorySemantics => next_id(),
        K::LiteralInteger => "1".to_owned(),
        K::LiteralString => "\"s\"".to_owned(),
        K::LiteralFloat => "1.5".to_owned(),
        K::LiteralContextDependentNumber => "5".to_owned(),
        K::LiteralExtInstInteger => "FAbs".to_owned(),
        K::LiteralSpecConstantOpInteger => "IAdd".to_owned(),
        K::PairLiteralIntegerIdRef => format!("3 {}", next_id()),
        K::PairIdRefLiteralInteger => format!("{} 3", next_id()),
        K::PairIdRefIdRef => format!("{} {}", next_id(), next_id()),
        K::SourceLanguage => "GLSL".to_owned(),
        K::ExecutionModel => "GLCompute".to_owned(),
        K::AddressingModel => "Logical".to_owned(),
        K::MemoryModel => "GLSL450".to_owned(),
        K::ExecutionMode => "LocalSize 1 2 3".to_owned(),
        K::StorageClass => "Function".to_owned(),
        K::Dim => "2D".to_owned(),
        K::SamplerAddressingMode => "Clamp".to_owned(),
        K::SamplerFilterMode => "Linear".to_owned(),
        K::ImageFormat => "Rgba8".to_owned(),
        K::AccessQualifier => "ReadWrite".to_owned(),
        K::Decoration => "SpecId 7".to_owned(),
        K::Capability => "Shader".to_owned(),
        K::GroupOperation => "InclusiveScan".to_owned(),
        K::PackedVectorFormat => "PackedVectorFormat4x8Bit".to_owned(),
        K::FPEncoding => "BFloat16KHR".to_owned(),
        K::ImageOperands => format!("Bias|ConstOffset {} {}", next_id(), next_id()),
        K::MemoryAccess => "Aligned 4".to_owned(),
        K::LoopControl => "Unroll|DependencyLength 2".to_owned(),
        K::SelectionControl => "Flatten".to_owned(),
        K::FunctionControl => "Inline|Pure".to_owned(),
        K::CooperativeMatrixOperands => "MatrixASignedComponentsKHR".to_owned(),
        K::CooperativeMatrixReduce => "Row|2x2".to_owned(),
        K::MatrixMultiplyAccumulateOperands => "MatrixATF32INTEL".to_owned(),
        K::RawAccessChainOperands => "RobustnessPerElementNV".to_owned(),
        K::TensorAddressingOperands => format!("TensorView {}", next_id()),
        K::TensorOperands => format!("OutOfBoundsValueARM {}", next_id()),
        // Parameters of enumerants.
        K::BuiltIn => "WorkgroupId".to_owned(),
        K::FunctionParameterAttribute => "NoAlias".to_owned(),
        K::FPRoundingMode => "RTZ".to_owned(),
        K::FPFastMathMode => "NotNaN|Fast".to_owned(),
        K::LinkageType => "Export".to_owned(),
        K::FPDenormMode => "FlushToZero".to_owned(),
        K::FPOperationMode => "ALT".to_owned(),
        K::InitializationModeQualifier => "InitOnDeviceResetINTEL".to_owned(),
        K::HostAccessQualifier => "ReadINTEL".to_owned(),
        K::LoadCacheControl => "CachedINTEL".to_owned(),
        K::StoreCacheControl => "WriteBackINTEL".to_owned(),
        K::NamedMaximumNumberOfRegisters => "AutoINTEL".to_owned(),
        other => panic!("no sample operand for {other:?}: add one"),
    }
}

/// Every opcode of rspirv's grammar, under every name (aliases included), written once with
/// its required operands only and once with every operand (one of a repeated one): we and
/// spirv-as write the same words, or both refuse at the same place. This covers the operand
/// lists, enumerant and mask names and enumerant parameters of the whole grammar.
#[test]
fn every_opcode_matches_spirv_as() {
    use rspirv::grammar::{OperandKind as K, OperandQuantifier as Q};
    let Some(tool) = require(Tool::SpirvAs, "every_opcode_matches_spirv_as") else {
        return;
    };
    // An integer type and value, and an imported set for OpExtInst.
    const PRELUDE: &str =
        "%int = OpTypeInt 32 1\n%sel = OpUndef %int\n%set = OpExtInstImport \"GLSL.std.450\"\n";
    let dir = scratch_dir();
    let mut names: Vec<String> = rspirv::grammar::INSTRUCTION_TABLE
        .iter()
        .map(|i| i.opname.to_owned())
        .collect();
    names.extend(
        [
            "SDotKHR",
            "DecorateStringGOOGLE",
            "ReportIntersectionNV",
            "TypeCooperativeVectorNV",
            "GroupNonUniformPartitionNV",
            "TypeTaskSequenceINTEL",
            "FixedSqrtINTEL",
            "DemoteToHelperInvocationEXT",
        ]
        .map(str::to_owned),
    );
    let (mut failures, mut compared, mut accepted) = (Vec::new(), 0, 0);
    for name in &names {
        let inst = rspirv::grammar::INSTRUCTION_TABLE
            .iter()
            .find(|i| i.opname == name.as_str())
            .or_else(|| tangle_spirv::grammar::instruction(&format!("Op{name}")))
            .expect("an alias of a known opcode");
        for full in [false, true] {
            let mut n = 0;
            let mut next_id = || {
                n += 1;
                // The first id of OpSwitch is its selector, of OpExtInst its set.
                match (n, name.as_str()) {
                    (1, "Switch") => "%sel".to_owned(),
                    (1, n) if n.starts_with("ExtInst") && n != "ExtInstImport" => "%set".to_owned(),
                    _ => format!("%x{n}"),
                }
            };
            let mut words = Vec::new();
            let mut result = false;
            for o in inst.operands {
                if o.kind == K::IdResult {
                    result = true;
                } else if o.quantifier == Q::One || full {
                    words.push(sample_operand(o.kind, &mut next_id));
                }
            }
            let text = format!(
                "{PRELUDE}{}Op{name} {}\n",
                if result { "%res = " } else { "" },
                words.join(" ")
            );
            let ours = assemble(&text, AsmOptions::default());
            let theirs = spirv_as(&tool, dir.path(), &text, false);
            compared += 1;
            accepted += usize::from(ours.is_ok());
            let verdict = match (&ours, &theirs) {
                (Ok(a), Ok(b)) => (a[3..] != b[3..]).then(|| {
                    format!(
                        "words differ:\n ours   {:08x?}\n theirs {:08x?}",
                        &a[5..],
                        &b[5..]
                    )
                }),
                (Err(e), Err((line, col, _))) => ((e.line, e.column) != (*line, *col)).then(|| {
                    format!(
                        "ours at {}:{} ({e}), spirv-as at {line}:{col}",
                        e.line, e.column
                    )
                }),
                (Ok(_), Err((_, _, msg))) => Some(format!("we accept, spirv-as rejects: {msg}")),
                (Err(e), Ok(_)) => Some(format!("we reject ({e}), spirv-as accepts")),
            };
            if let Some(v) = verdict {
                failures.push(format!("{text:?}: {v}"));
            }
        }
    }
    // Most texts must assemble, or the sweep compares little but error positions.
    assert!(
        compared > 1700 && accepted > 1700,
        "{accepted} of {compared} texts accepted"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every enumerant of the kinds below (by the `spirv` crate's name for it), with the
/// parameters the grammar gives it: we and spirv-as write the same words, or both refuse at
/// the same place.
#[test]
fn every_enumerant_matches_spirv_as() {
    use rspirv::grammar::OperandKind as K;
    use spirv as s;
    let Some(tool) = require(Tool::SpirvAs, "every_enumerant_matches_spirv_as") else {
        return;
    };
    fn names<T: std::fmt::Debug>(from_u32: fn(u32) -> Option<T>) -> Vec<(String, u32)> {
        (0..=0xFFFF)
            .filter_map(|v| from_u32(v).map(|e| (format!("{e:?}"), v)))
            .collect()
    }
    let kinds = [
        (
            K::ExecutionMode,
            "OpExecutionMode %f {}",
            names(s::ExecutionMode::from_u32),
        ),
        (
            K::Decoration,
            "OpDecorate %x {}",
            names(s::Decoration::from_u32),
        ),
        (
            K::Capability,
            "OpCapability {}",
            names(s::Capability::from_u32),
        ),
        (
            K::BuiltIn,
            "OpDecorate %x BuiltIn {}",
            names(s::BuiltIn::from_u32),
        ),
        (
            K::StorageClass,
            "%p = OpTypePointer {} %int",
            names(s::StorageClass::from_u32),
        ),
        (
            K::ExecutionModel,
            "OpEntryPoint {} %f \"m\"",
            names(s::ExecutionModel::from_u32),
        ),
        (
            K::GroupOperation,
            "%r = OpGroupIAdd %int %s {} %v",
            names(s::GroupOperation::from_u32),
        ),
        (
            K::ImageFormat,
            "%i = OpTypeImage %int 2D 0 0 0 2 {}",
            names(s::ImageFormat::from_u32),
        ),
        (
            K::SourceLanguage,
            "OpSource {} 100",
            names(s::SourceLanguage::from_u32),
        ),
    ];
    let dir = scratch_dir();
    let (mut failures, mut compared, mut accepted) = (Vec::new(), 0, 0);
    for (kind, context, enumerants) in &kinds {
        for (name, value) in enumerants {
            let mut n = 0;
            let mut next_id = || {
                n += 1;
                format!("%y{n}")
            };
            let mut words = vec![name.clone()];
            for (k, _) in tangle_spirv::grammar::enumerant_parameters(*kind, *value) {
                words.push(sample_operand(k, &mut next_id));
            }
            let text = format!(
                "%int = OpTypeInt 32 1\n{}\n",
                context.replace("{}", &words.join(" "))
            );
            let ours = assemble(&text, AsmOptions::default());
            let theirs = spirv_as(&tool, dir.path(), &text, false);
            compared += 1;
            accepted += usize::from(ours.is_ok());
            let verdict = match (&ours, &theirs) {
                (Ok(a), Ok(b)) => (a[3..] != b[3..]).then(|| {
                    format!(
                        "words differ:\n ours   {:08x?}\n theirs {:08x?}",
                        &a[5..],
                        &b[5..]
                    )
                }),
                (Err(e), Err((line, col, _))) => ((e.line, e.column) != (*line, *col)).then(|| {
                    format!(
                        "ours at {}:{} ({e}), spirv-as at {line}:{col}",
                        e.line, e.column
                    )
                }),
                (Ok(_), Err((_, _, msg))) => Some(format!("we accept, spirv-as rejects: {msg}")),
                (Err(e), Ok(_)) => Some(format!("we reject ({e}), spirv-as accepts")),
            };
            if let Some(v) = verdict {
                failures.push(format!("{text:?}: {v}"));
            }
        }
    }
    assert!(
        compared > 700 && accepted > 700,
        "{accepted} of {compared} texts accepted"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
