//! Demangler cases with the names Debian's uftrace 0.13 printed for them (its `report` and
//! `dump`, asked through scripts/uftrace-names-oracle.py), then the unit tests of uftrace's own
//! utils/demangle.c, then a sample of real and mutated symbols (fixture names-0.13.tsv).

use super::*;
use crate::work::{assert_scales, count, Work::Demangle};

fn check(cases: &[(&str, &str)]) {
    for (sym, want) in cases {
        assert_eq!(demangle(sym), *want, "{sym}");
    }
}

/// Names from the corpus C++ recording with the names `uftrace report` printed for them.
#[test]
fn like_uftrace_report() {
    let cases = [
        ("_ZNSaIcEC1Ev", "std::allocator::allocator"),
        ("_Znwm", "operator new"),
        ("_ZdlPvm", "operator delete"),
        (
            "_ZNSt6vectorIPN3geo5ShapeESaIS2_EEC1ESt16initializer_listIS2_ERKS3_",
            "std::vector::vector",
        ),
        (
            "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1IS3_EEPKcRKS3_",
            "std::__cxx11::basic_string::basic_string",
        ),
        (
            "_Z5labelRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEi",
            "label",
        ),
        (
            "_ZN9__gnu_cxxneIPPN3geo5ShapeESt6vectorIS3_SaIS3_EEEEbRKNS_17__normal_iteratorIT_T0_EESD_",
            "__gnu_cxx::operator!=",
        ),
        (
            "_ZStplIcSt11char_traitsIcESaIcEENSt7__cxx1112basic_stringIT_T0_T1_EERKS8_OS8_",
            "std::operator+",
        ),
        (
            "_ZZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructIPKcEEvT_S8_St20forward_iterator_tagEN6_GuardD2Ev",
            "std::__cxx11::basic_string::_M_construct::_Guard::~_Guard",
        ),
        ("_ZN3geo4RectD0Ev", "geo::Rect::~Rect"),
        ("_Z6squareIiET_S0_", "square"),
        (
            "_ZNK9__gnu_cxx17__normal_iteratorIPPN3geo5ShapeESt6vectorIS3_SaIS3_EEEdeEv",
            "__gnu_cxx::__normal_iterator::operator*",
        ),
        ("_ZNSt8__detail14__to_chars_lenIjEEjT_i", "std::__detail::__to_chars_len"),
        ("main", "main"),
        ("_Z", "_Z"),
        ("_ZN3foo", "_ZN3foo"),
        ("_Z999x", "_Z999x"),
    ];
    for (m, want) in cases {
        assert_eq!(demangle(m), want, "{m}");
    }
}

/// ABI tags (`B <name>`) print as one more scope, as in uftrace's own
/// `std::set::erase::cxx11`.
#[test]
fn abi_tags_are_a_last_scope() {
    check(&[
        (
            "_ZN7rocksdb23GetRocksBuildPropertiesB5cxx11Ev",
            "rocksdb::GetRocksBuildProperties::cxx11",
        ),
        (
            "_ZNK7rocksdb6Status8ToStringB5cxx11Ev",
            "rocksdb::Status::ToString::cxx11",
        ),
        ("_ZN3fooB5cxx113barEv", "foo::cxx11::bar"),
        (
            "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
            "std::__cxx11::basic_string::_M_create",
        ),
    ]);
}

/// `_GLOBAL__sub_I_` (static initialisers) stays as a prefix of the demangled rest; other
/// prefixes and names that fail stay as they are.
#[test]
fn global_sub_i_prefix_is_kept() {
    check(&[
        ("_GLOBAL__sub_I__ZN7rocksdb10TableCacheC2Ev", "_GLOBAL__sub_I_rocksdb::TableCache::TableCache"),
        ("_GLOBAL__sub_I_main", "_GLOBAL__sub_I_main"),
        ("_GLOBAL__sub_I_table_cache.cc", "_GLOBAL__sub_I_table_cache.cc"),
        ("_GLOBAL__sub_I__Z", "_GLOBAL__sub_I__Z"),
        ("_GLOBAL__sub_D__ZN3ABC3fooEv", "_GLOBAL__sub_D__ZN3ABC3fooEv"),
        ("_GLOBAL__sub_I__ZN7rocksdb10TableCacheC2ERKNS_16ImmutableOptionsEPKNS_11FileOptionsEPNS_5CacheEPNS_18BlockCacheTracerERKSt10shared_ptrINS_8IOTracerEERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "_GLOBAL__sub_I__ZN7rocksdb10TableCacheC2ERKNS_16ImmutableOptionsEPKNS_11FileOptionsEPNS_5CacheEPNS_18BlockCacheTracerERKSt10shared_ptrINS_8IOTracerEERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
    ]);
}

/// Anonymous namespaces print as `_GLOBAL__N_1`, not `(anonymous namespace)`.
#[test]
fn anonymous_namespaces_keep_their_mangled_name() {
    check(&[
        ("_GLOBAL__N_1", "_GLOBAL__N_1"),
        ("_ZN12_GLOBAL__N_13fooEv", "_GLOBAL__N_1::foo"),
        (
            "_ZN12_GLOBAL__N_16Helper3runEv",
            "_GLOBAL__N_1::Helper::run",
        ),
    ]);
}

/// Template arguments and parameter types are parsed and dropped.
#[test]
fn templates_and_parameters_are_dropped() {
    check(&[
        ("_Z6squareIiET_S0_", "square"),
        ("_ZN5StackIiE4pushERKi", "Stack::push"),
        (
            "_ZNSt6vectorIiSaIiEE9push_backERKi",
            "std::vector::push_back",
        ),
        ("_Z3maxIdEKT_RS1_S2_", "max"),
        ("_Z1fIJidEEvDpT_", "f"),
        ("_Z1fA10_i", "f"),
        ("_Z1fM1AFviE", "f"),
        ("_Z1fDv4_f", "f"),
        ("_Z1fIiEDTcl1gfp_EET_", "f"),
        ("_Z3fooILi5EEvv", "foo"),
        ("_Z3fooILb1EEvv", "foo"),
        ("_Z3fooIXadL_Z3barvEEEvv", "foo"),
        ("_Z3fooPU3AS1i", "foo"),
        ("_Z3foou7Builtin", "foo"),
        ("_Z4funcPFviE", "func"),
        ("_ZSt4swapIiEvRT_S1_", "std::swap"),
        (
            "_ZSt4moveIRiEONSt16remove_referenceIT_E4typeEOS2_",
            "std::move",
        ),
        (
            "_ZNSt8functionIFvvEEC2IZ4mainEUlvE_vvEEOT_",
            "std::function::function",
        ),
    ]);
}

/// Constructors and destructors repeat the last name; inheriting constructors fail.
#[test]
fn constructors_and_destructors_repeat_the_class() {
    check(&[
        ("_ZN3geo5ShapeD2Ev", "geo::Shape::~Shape"),
        ("_ZN3geo5ShapeD0Ev", "geo::Shape::~Shape"),
        ("_ZN3geo5ShapeC2Ev", "geo::Shape::Shape"),
        ("_ZN3FooC1ERKS_", "Foo::Foo"),
        ("_ZN3FooC2EOS_", "Foo::Foo"),
        ("_ZN3FooD4Ev", "Foo::~Foo"),
        ("_ZN3FooC4Ev", "Foo::Foo"),
        (
            "_ZN9__gnu_cxx13new_allocatorIcED2Ev",
            "__gnu_cxx::new_allocator::~new_allocator",
        ),
        ("_ZN3FooCI1BaseEi", "_ZN3FooCI1BaseEi"),
        ("_ZN3FooCI2BaseEi", "_ZN3FooCI2BaseEi"),
        ("_ZNSsC1Ev", "std::basic_string<>::basic_string<>"),
        ("_ZNSaIcED1Ev", "std::allocator::~allocator"),
        ("_ZNSiD0Ev", "std::basic_istream::~basic_istream"),
        ("_ZNSoD1Ev", "std::basic_ostream::~basic_ostream"),
        ("_ZNSdD2Ev", "std::basic_iostream::~basic_iostream"),
        ("_ZNSt8ios_base4InitC1Ev", "std::ios_base::Init::Init"),
        ("_ZNSt8ios_base4InitD1Ev", "std::ios_base::Init::~Init"),
    ]);
}

/// Operators by uftrace 0.13's table: a cast is `operator(cast)`, a literal operator
/// `operator""`; `<=>`, `co_await` and vendor operators are not in it.
#[test]
fn operators() {
    check(&[
        ("_ZN4Vec2plERKS_", "Vec2::operator+"),
        ("_ZN4Vec2mIERKS_", "Vec2::operator-="),
        ("_ZN4Vec2ixEi", "Vec2::operator[]"),
        ("_ZN4Vec2clEv", "Vec2::operator()"),
        ("_ZNK4Vec2cvbEv", "Vec2::operator(cast)"),
        ("_ZN4Vec2aSERKS_", "Vec2::operator="),
        ("_ZN4Vec2aSEOS_", "Vec2::operator="),
        ("_ZplRK4Vec2S1_", "operator+"),
        ("_ZlsRSoRK4Vec2", "operator<<"),
        ("_Zli3_kmy", r##"operator"""##),
        ("_ZN4Vec2ptEv", "Vec2::operator->"),
        ("_ZN4Vec2pmEv", "Vec2::operator->*"),
        ("_ZN4Vec2coEv", "Vec2::operator~"),
        ("_ZN4Vec2ntEv", "Vec2::operator!"),
        ("_ZdlPvm", "operator delete"),
        ("_ZdaPv", "operator delete[]"),
        ("_Znam", "operator new[]"),
        ("_ZnwmRKSt9nothrow_t", "operator new"),
        (
            "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
            "std::operator<<",
        ),
        ("_ZNSolsEi", "std::basic_ostream::operator<<"),
        ("_ZN4Vec2ssERKS_", "_ZN4Vec2ssERKS_"),
        ("_ZN4Vec2awEv", "_ZN4Vec2awEv"),
        ("_ZN4Vec2v14fooEv", "_ZN4Vec2v14fooEv"),
    ]);
}

/// Lambdas print as `$_<n>`, local entities after their function; a discriminator
/// after a local function fails the name in uftrace 0.13.
#[test]
fn lambdas_and_local_names() {
    check(&[
        ("_ZZ4mainENKUlvE_clEv", "main::$_0::operator()"),
        ("_ZZ4mainENKUlvE0_clEv", "main::$_1::operator()"),
        ("_ZZ4mainENKUliE1_clEi", "main::$_2::operator()"),
        ("_ZZ4mainENUlvE_4_FUNEv", "main::$_0::_FUN"),
        ("_ZZN3Foo3barEvENKUlvE_clEv", "Foo::bar::$_0::operator()"),
        ("_ZZ4mainE5count", "main::count"),
        ("_ZZ4mainE5count_0", "main::count"),
        ("_ZZ4mainEs", "main"),
        ("_ZZ4mainEs_0", "main"),
        ("_ZZ4maineE3bar", "main::bar"),
        ("_ZZ3foovEN1A3bazEv", "foo::A::baz"),
        ("_ZZ3foovEN1A3bazEv_1", "_ZZ3foovEN1A3bazEv_1"),
        ("_ZZ3foovEN1A3bazEv__12_", "_ZZ3foovEN1A3bazEv__12_"),
        ("_ZZ3foovENd_3bazEv", "_ZZ3foovENd_3bazEv"),
        ("_ZN1AUt_E", "A"),
        ("_ZN1AUt0_3fooEv", "A::foo"),
    ]);
}

/// Compiler clone suffixes and symbol versions end the name.
#[test]
fn clones_and_symbol_versions_are_cut() {
    check(&[
        ("_Z7computei.constprop.0", "compute"),
        ("_Z7computei.isra.0", "compute"),
        ("_Z7computei.part.0", "compute"),
        ("_Z7computei.cold", "compute"),
        ("_Z7computei.constprop.0.isra.0", "compute"),
        ("_ZZ4mainENKUlvE_clEv.constprop.0", "main::$_0::operator()"),
        ("_ZN3Foo3barEv.localalias", "Foo::bar"),
        ("_ZN3Foo3barEv.cold.12", "Foo::bar"),
        ("_ZN3ABC3fooEv@@GLIBC_2.2.5", "ABC::foo"),
        ("_ZN3ABC3fooEv@plt", "ABC::foo"),
    ]);
}

/// Special names: `__kind__` prefixes for vtables and type info (uftrace's order of
/// names: `TI` is `typeinfo_name`, `TS` `typeinfo`), the target of thunks, clones and aliases.
#[test]
fn special_names() {
    check(&[
        ("_ZTV3Foo", "__vtable__Foo"),
        ("_ZTT3Foo", "__VTT__Foo"),
        ("_ZTI3Foo", "__typeinfo_name__Foo"),
        ("_ZTS3Foo", "__typeinfo__Foo"),
        ("_ZTIN3geo5ShapeE", "__typeinfo_name__geo::Shape"),
        ("_ZTF3Foo", "__typeinfo_fn__Foo"),
        ("_ZTJ3Foo", "__java_class__Foo"),
        ("_ZThn16_N3Foo3barEv", "Foo::bar"),
        ("_ZTv0_n24_N3Foo3barEv", "Foo::bar"),
        ("_ZTch0_h16_N3Foo3barEv", "Foo::bar"),
        ("_ZTHN3Foo1xE", "TLS_init::Foo::x"),
        ("_ZTW1x", "TLS_wrap::x"),
        ("_ZGVZ4mainE1x", "__guard_variable__main::x"),
        ("_ZGVN3Foo1xE", "__guard_variable__Foo::x"),
        ("_ZGR1x_", "__ref_temp__x"),
        ("_ZGAN3Foo3barEv", "Foo::bar"),
        ("_ZGTtN3Foo3barEv", "Foo::bar"),
        ("_ZGTnN3Foo3barEv", "Foo::bar"),
        ("_ZGTxN3Foo3barEv", "_ZGTxN3Foo3barEv"),
        (
            "_ZTCN3Foo3BarE8_N3Baz3QuxE",
            "__construction_vtable__Foo::Bar",
        ),
    ]);
}

/// Rust legacy names: the hash is dropped, `$..$` escapes replaced (an unknown one
/// repeats the text before it, as uftrace does); v0 names (`_R`) stay as they are.
#[test]
fn rust_legacy_names() {
    check(&[
        ("_ZN3foo3bar17h05af221e174051e9E", "foo::bar"),
        (
            "_ZN4core3ptr13drop_in_place17h0123456789abcdefE",
            "core::ptr::drop_in_place",
        ),
        (
            "_ZN4core3fmt9Formatter3pad17hfedcba9876543210E",
            "core::fmt::Formatter::pad",
        ),
        (
            "_ZN50_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$Drop$GT$4drop17h1111111111111111E",
            "_ZN50_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$Drop$GT$4drop17h1111111111111111E",
        ),
        ("_ZN4test3$C$3fooE", "test::,::foo"),
        ("_ZN4test2$x3fooE", "test::$x::foo"),
        ("_ZN4test6a$zz$b3fooE", "test::aa$zz$b::foo"),
        ("_ZN4test12$LT$i32$GT$E", "_ZN4test12$LT$i32$GT$E"),
        ("_RNvCs1234_7mycrate3foo", "_RNvCs1234_7mycrate3foo"),
    ]);
}

/// C names stay; `_Z` without a name stays; the standard abbreviations print their
/// names (`Ss` as `std::basic_string<>`).
#[test]
fn plain_names_and_std_abbreviations() {
    check(&[
        ("main", "main"),
        ("printf", "printf"),
        ("_Z", "_Z"),
        ("_Z1", "_Z1"),
        ("_Z3foo", "foo"),
        ("_Z3fooi", "foo"),
        (
            "_Z41__static_initialization_and_destruction_0ii",
            "__static_initialization_and_destruction_0",
        ),
        ("_ZNSs6appendEPKc", "std::basic_string<>::append"),
        ("_ZNKSt5ctypeIcE8do_widenEc", "std::ctype::do_widen"),
    ]);
}

/// `TEST_CASE(demangle_simple1..8)` and `demangle_rust1` of uftrace's utils/demangle.c (the
/// version of uftrace 0.13: Rust `as` clauses are kept).
#[test]
fn uftrace_unit_tests() {
    check(&[
        ("normal", "normal"),
        ("_ZN3ABC3fooEv", "ABC::foo"),
        ("_ZN3ABCC1Ei", "ABC::ABC"),
        ("_Znwm", "operator new"),
        ("_ZN2ns3ns13foo4bar1Ev", "ns::ns1::foo::bar1"),
        ("_ZThn8_N13FtraceServiceD0Ev", "FtraceService::~FtraceService"),
        ("_ZN2v88internal12ScopedVectorIcEC1Ei", "v8::internal::ScopedVector::ScopedVector"),
        ("_ZNSt16allocator_traitsISaISt13_Rb_tree_nodeISt4pairIKSsN7pbnjson7JSchemaEEEEE9constructIS6_IS1_ISsS4_EEEEDTcl12_S_constructfp_fp0_spcl7forwardIT0_Efp1_EEERS7_PT_DpOSB_", "std::allocator_traits::construct"),
        ("_ZN4node8Watchdog7DestroyEv.part.0", "node::Watchdog::Destroy"),
        ("_ZN2v88internal8CodeStub6GetKeyEv.constprop.17", "v8::internal::CodeStub::GetKey"),
        ("_ZSteqIPN2v88internal8compiler4NodeERKS4_PS5_EbRKSt15_Deque_iteratorIT_T0_T1_ESE_", "std::operator=="),
        ("_ZN2v84base8internalmlIiiEENS1_14CheckedNumericINS1_19ArithmeticPromotionIT_T0_XqugtsrNS1_11MaxExponentIS5_EE5valuesrNS7_IS6_EE5valuequgtsrS8_5valueL_ZNS7_IiE5valueEELNS1_27ArithmeticPromotionCategoryE0ELSB_2EqugtsrS9_5valueL_ZNSA_5valueEELSB_1ELSB_2EEE4typeEEERKNS3_IS5_EES6_", "v8::base::internal::operator*"),
        ("_ZSt3powIidEN9__gnu_cxx11__promote_2IT_T0_NS0_9__promoteIS2_XsrSt12__is_integerIS2_E7__valueEE6__typeENS4_IS3_XsrS5_IS3_E7__valueEE6__typeEE6__typeES2_S3_", "std::pow"),
        ("_ZSt9__find_ifISt14_List_iteratorISt10shared_ptrI16AppLaunchingItemEEZN13MemoryChecker8add_itemES1_I13LaunchingItemEEUlS7_E_ET_S9_S9_T0_St18input_iterator_tag", "std::__find_if"),
        ("_ZZ19convertToWindowTypeRKSsRSsENUt_D1Ev", "convertToWindowType::~convertToWindowType"),
        ("_ZNSt3setISsSt4lessISsESaISsEE5eraseB5cxx11ESt23_Rb_tree_const_iteratorISsE", "std::set::erase::cxx11"),
        ("_ZNSt16allocator_traitsISaISsEE9_S_selectIKS0_EENSt9enable_ifIXntsrNS1_15__select_helperIT_EE5valueES6_E4typeERS6_", "std::allocator_traits::_S_select"),
        ("_ZN6icu_5416umtx_loadAcquireERU7_Atomici", "icu_54::umtx_loadAcquire"),
        ("_ZN2v88internal13RememberedSetILNS0_16PointerDirectionE1EE7IterateIZNS3_18IterateWithWrapperIPFvPPNS0_10HeapObjectES7_EEEvPNS0_4HeapET_EUlPhE_EEvSC_SD_", "v8::internal::RememberedSet::Iterate"),
        ("_ZN2v88internal7SlotSet7IterateIZNS0_13RememberedSetILNS0_16PointerDirectionE1EE18IterateWithWrapperIPFvPPNS0_10HeapObjectES8_EEEvPNS0_4HeapET_EUlPhE_EEiSE_", "v8::internal::SlotSet::Iterate"),
        ("_ZNSt5tupleIJPbSt14default_deleteIA_bEEEC2Ev", "std::tuple::tuple"),
        ("_Z26storageIndexFromLayoutItemRKN51_GLOBAL__N_kernel_qformlayout.cpp_C3DE8A26_2E30FA8617FixedColumnMatrixIP15QFormLayoutItemLi2EEES2_", "storageIndexFromLayoutItem"),
        ("_ZGTtNSt11range_errorD1Ev", "std::range_error::~range_error"),
        ("_ZNSi6ignoreEl@@GLIBCXX_3.4.5", "std::basic_istream::ignore"),
        ("_ZN4llvm12function_refIFN5clang12ActionResultIPNS1_4ExprELb1EEES4_EE11callback_fnIZNS1_4Sema25CorrectDelayedTyposInExprES4_PNS1_7VarDeclES7_Ed_NUlS4_E_EEES5_lS4_", "llvm::function_ref::callback_fn"),
        ("_ZN4base8internal15OptionalStorageImLb1ELb1EECI2NS0_19OptionalStorageBaseImLb1EEEIJRKmEEENS_10in_place_tEDpOT_", "base::internal::OptionalStorage::OptionalStorage"),
        ("_ZL18color_lookup_tableILi3EEvPK28SkJumper_ColorLookupTableCtxRDv4_fS4_S4_S3_Dv4_jS5_", "color_lookup_table"),
        ("_ZTWN6__xray19__xray_fdr_internal7RunningE", "TLS_wrap::__xray::__xray_fdr_internal::Running"),
        ("_ZTSSt12system_error", "__typeinfo__std::system_error"),
        ("_ZNSs4nposE", "std::basic_string<>::npos"),
        ("_ZNSt14numeric_limitsIoE5radixE", "std::numeric_limits::radix"),
        ("_ZGVNSt7__cxx117collateIcE2idE", "__guard_variable__std::__cxx11::collate::id"),
        ("_ZNSbIwSt11char_traitsIwESaIwEE4nposE", "std::basic_string::npos"),
        ("_ZTV23SkCanvasVirtualEnforcerI8SkCanvasE", "__vtable__SkCanvasVirtualEnforcer"),
        ("_ZZNK13SkImageShader14onAppendStagesERKN12SkShaderBase8StageRecEENK3$_0clEv", "SkImageShader::onAppendStages::$_0::operator()"),
        ("_ZTCN2v88internal12StdoutStreamE0_NS0_8OFStreamE", "__construction_vtable__v8::internal::StdoutStream"),
        ("_ZGRZNK5blink8Variable27GetPropertyNameAtomicStringEvE4name_", "__ref_temp__blink::Variable::GetPropertyNameAtomicString::name"),
        ("_ZNSt14numeric_limitsIDuE8is_exactE", "std::numeric_limits::is_exact"),
        ("_ZTCSt10istrstream0_Si", "__construction_vtable__std::istrstream"),
        ("_ZTCNSt7__cxx1119basic_istringstreamIwSt11char_traitsIwESaIwEEE0_St13basic_istreamIwS2_E", "__construction_vtable__std::__cxx11::basic_istringstream::std::std::allocator"),
        ("_ZN8$BP$test3fooE", "*test::foo"),
        ("_ZN35Bar$LT$$u5b$u32$u3b$$u20$4$u5d$$GT$E", "Bar<[u32; 4]>"),
        ("_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$3barE", "_<Test + 'static as foo..Bar<Test>>::bar"),
        ("_ZN3foo3bar17h05af221e174051e9E", "foo::bar"),
        ("_ZN61_$LT$$RF$std..io..stdio..Stdout$u20$as$u20$std..io..Write$GT$9write_fmt17h75c561f414a62159E", "_<&std..io..stdio..Stdout as std..io..Write>::write_fmt"),
        ("_GLOBAL__sub_I__ZN3ABC3fooEv", "_GLOBAL__sub_I_ABC::foo"),
        ("_GLOBAL__sub_I_main.cpp", "_GLOBAL__sub_I_main.cpp"),
        ("_GLOBAL__sub_I_arr", "_GLOBAL__sub_I_arr"),
    ]);
}

/// A sample of real symbols (the corpus recordings' symbol tables, libstdc++, Boost, LLVM 15)
/// and of mutated ones (cut, one byte added, removed or changed), with uftrace 0.13's names.
#[test]
fn sample_of_real_and_mutated_symbols() {
    let text = include_str!("../../../../tests/fixtures/uftrace/demangle/names-0.13.tsv");
    let mut n = 0;
    for line in text.lines() {
        let (sym, want) = line.split_once('\t').expect("symbol<TAB>name");
        assert_eq!(demangle(sym), want, "{sym}");
        n += 1;
    }
    assert!(n > 500, "{n} names");
}

/// Work of demangling `sym`: steps, plus bytes searched for `$` or printed.
fn work_of(sym: &str) -> (String, u64) {
    count(Demangle, || demangle(sym))
}

#[test]
fn hostile_input_terminates() {
    // Steps are bounded by 1000 + 64 per byte of the name; what is searched or printed by the
    // name's length more.
    let bounded = |sym: &str| {
        let (name, n) = work_of(sym);
        let max = 1000 + 130 * sym.len() as u64;
        assert!(n <= max, "{n} units of work for {} bytes", sym.len());
        name
    };
    // Deep nesting is cut by the depth bound (uftrace itself would overflow its stack).
    let deep = format!("_Z1fI{}", "I".repeat(100_000));
    assert_eq!(bounded(&deep), deep);
    let deep = format!("_Z1f{}", "PFv".repeat(50_000));
    assert_eq!(bounded(&deep), deep);
    bounded(&format!("_Z{}", "PPPPPPPPPP".repeat(5000)));
    bounded("_ZNS9999999999999999999_E");
    bounded(&format!("_ZN{}E", "IXXXXXX".repeat(1000)));
    // A `D` with nothing after it makes uftrace loop forever; the step budget ends it here.
    assert_eq!(bounded("_Z1fD"), "_Z1fD");
}

#[test]
fn long_names_cost_linear_time() {
    // A 1 MB scope followed by 3,000 nested names prints them all; twice the scope and twice the
    // names cost twice the work (steps, bytes searched for `$` and printed).
    assert_scales(Demangle, "long scope, then names", 1_000_000, 2.2, |n| {
        let names = n / 333;
        let big = format!("_ZN{n}{}{}Ev", "a".repeat(n), "1b".repeat(names));
        let want = format!("{}{}", "a".repeat(n), "::b".repeat(names));
        assert_eq!(demangle(&big), want);
    });
    assert_scales(Demangle, "nested names", 20_000, 2.2, |n| {
        let big = format!("_ZN{}Ev", "1b".repeat(n));
        assert_eq!(demangle(&big), format!("b{}", "::b".repeat(n - 1)));
    });
    let one = format!("_ZN{}{}1bEv", 100_000, "a".repeat(100_000));
    assert_eq!(demangle(&one), format!("{}::b", "a".repeat(100_000)));
}
