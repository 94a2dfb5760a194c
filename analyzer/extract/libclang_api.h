/* libclang, loaded when a run first needs it (docs/performance.md): a run
 * whose files are all cached, or the main process of one that parses in its
 * workers (extract/contain.c), never maps libclang and LLVM; binding them
 * took over a third of a warm run's time. Every libclang function gpulint
 * calls is listed below and reached through a table that libclang_require
 * fills; the macros at the end make `clang_f(...)` in extraction code a call
 * through it. gpulint does not link libclang, so a function used without
 * being listed here fails the link. */
#ifndef GPULINT_EXTRACT_LIBCLANG_API_H
#define GPULINT_EXTRACT_LIBCLANG_API_H

#include <clang-c/Documentation.h>
#include <clang-c/Index.h>

#define LIBCLANG_FUNCTIONS(X) \
    X(clang_Comment_getChild) \
    X(clang_Comment_getKind) \
    X(clang_Comment_getNumChildren) \
    X(clang_Cursor_Evaluate) \
    X(clang_Cursor_getArgument) \
    X(clang_Cursor_getCommentRange) \
    X(clang_Cursor_getMangling) \
    X(clang_Cursor_getNumArguments) \
    X(clang_Cursor_getNumTemplateArguments) \
    X(clang_Cursor_getParsedComment) \
    X(clang_Cursor_getTemplateArgumentKind) \
    X(clang_Cursor_getTemplateArgumentType) \
    X(clang_Cursor_isNull) \
    X(clang_EvalResult_dispose) \
    X(clang_EvalResult_getAsLongLong) \
    X(clang_EvalResult_getKind) \
    X(clang_File_isEqual) \
    X(clang_Location_isFromMainFile) \
    X(clang_Location_isInSystemHeader) \
    X(clang_ParamCommandComment_getParamName) \
    X(clang_ParamCommandComment_isParamIndexValid) \
    X(clang_Type_getNamedType) \
    X(clang_Type_getNumTemplateArguments) \
    X(clang_Type_getTemplateArgumentAsType) \
    X(clang_createIndex) \
    X(clang_defaultSaveOptions) \
    X(clang_disposeCXTUResourceUsage) \
    X(clang_disposeDiagnostic) \
    X(clang_disposeIndex) \
    X(clang_disposeSourceRangeList) \
    X(clang_disposeString) \
    X(clang_disposeTranslationUnit) \
    X(clang_equalCursors) \
    X(clang_equalRanges) \
    X(clang_getArgType) \
    X(clang_getCXTUResourceUsage) \
    X(clang_getCString) \
    X(clang_getCanonicalType) \
    X(clang_getCursorBinaryOperatorKind) \
    X(clang_getCursorDefinition) \
    X(clang_getCursorExtent) \
    X(clang_getCursorKind) \
    X(clang_getCursorLinkage) \
    X(clang_getCursorLocation) \
    X(clang_getCursorReferenced) \
    X(clang_getCursorResultType) \
    X(clang_getCursorSemanticParent) \
    X(clang_getCursorSpelling) \
    X(clang_getCursorType) \
    X(clang_getCursorUSR) \
    X(clang_getCursorUnaryOperatorKind) \
    X(clang_getDiagnostic) \
    X(clang_getDiagnosticLocation) \
    X(clang_getDiagnosticSeverity) \
    X(clang_getDiagnosticSpelling) \
    X(clang_getEnumConstantDeclValue) \
    X(clang_getEnumDeclIntegerType) \
    X(clang_getExpansionLocation) \
    X(clang_getFile) \
    X(clang_getFileContents) \
    X(clang_getFileLocation) \
    X(clang_getFileName) \
    X(clang_getInclusions) \
    X(clang_getNullCursor) \
    X(clang_getNumArgTypes) \
    X(clang_getNumDiagnostics) \
    X(clang_getNumOverloadedDecls) \
    X(clang_getOverloadedDecl) \
    X(clang_getPointeeType) \
    X(clang_getRangeEnd) \
    X(clang_getRangeStart) \
    X(clang_getResultType) \
    X(clang_getSpecializedCursorTemplate) \
    X(clang_getSkippedRanges) \
    X(clang_getSpellingLocation) \
    X(clang_getTranslationUnitCursor) \
    X(clang_getTypeDeclaration) \
    X(clang_getTypeSpelling) \
    X(clang_getTypedefDeclUnderlyingType) \
    X(clang_getUnqualifiedType) \
    X(clang_isConstQualifiedType) \
    X(clang_isCursorDefinition) \
    X(clang_isInvalidDeclaration) \
    X(clang_isDeclaration) \
    X(clang_isExpression) \
    X(clang_isTranslationUnit) \
    X(clang_parseTranslationUnit2) \
    X(clang_saveTranslationUnit) \
    X(clang_visitChildren)

typedef struct {
#define LIBCLANG_MEMBER(name) __typeof__(name) *bound_##name;
    LIBCLANG_FUNCTIONS(LIBCLANG_MEMBER)
#undef LIBCLANG_MEMBER
} libclang_table;

extern libclang_table libclang;

/* Load libclang unless loaded; clang_createIndex calls it (below), before
 * any other libclang call can happen. Exits with gpulint's internal-error
 * status, saying why, when it cannot be loaded. */
void libclang_require(void);

/* The library file libclang is loaded from: the PCH keys name it by its
 * size and mtime (extract/extract.c), without loading it. */
const char *libclang_path(void);

#define clang_Comment_getChild (libclang.bound_clang_Comment_getChild)
#define clang_Comment_getKind (libclang.bound_clang_Comment_getKind)
#define clang_Comment_getNumChildren (libclang.bound_clang_Comment_getNumChildren)
#define clang_Cursor_Evaluate (libclang.bound_clang_Cursor_Evaluate)
#define clang_Cursor_getArgument (libclang.bound_clang_Cursor_getArgument)
#define clang_Cursor_getCommentRange (libclang.bound_clang_Cursor_getCommentRange)
#define clang_Cursor_getMangling (libclang.bound_clang_Cursor_getMangling)
#define clang_Cursor_getNumArguments (libclang.bound_clang_Cursor_getNumArguments)
#define clang_Cursor_getNumTemplateArguments (libclang.bound_clang_Cursor_getNumTemplateArguments)
#define clang_Cursor_getParsedComment (libclang.bound_clang_Cursor_getParsedComment)
#define clang_Cursor_getTemplateArgumentKind (libclang.bound_clang_Cursor_getTemplateArgumentKind)
#define clang_Cursor_getTemplateArgumentType (libclang.bound_clang_Cursor_getTemplateArgumentType)
#define clang_Cursor_isNull (libclang.bound_clang_Cursor_isNull)
#define clang_EvalResult_dispose (libclang.bound_clang_EvalResult_dispose)
#define clang_EvalResult_getAsLongLong (libclang.bound_clang_EvalResult_getAsLongLong)
#define clang_EvalResult_getKind (libclang.bound_clang_EvalResult_getKind)
#define clang_File_isEqual (libclang.bound_clang_File_isEqual)
#define clang_Location_isFromMainFile (libclang.bound_clang_Location_isFromMainFile)
#define clang_Location_isInSystemHeader (libclang.bound_clang_Location_isInSystemHeader)
#define clang_ParamCommandComment_getParamName (libclang.bound_clang_ParamCommandComment_getParamName)
#define clang_ParamCommandComment_isParamIndexValid (libclang.bound_clang_ParamCommandComment_isParamIndexValid)
#define clang_Type_getNamedType (libclang.bound_clang_Type_getNamedType)
#define clang_Type_getNumTemplateArguments (libclang.bound_clang_Type_getNumTemplateArguments)
#define clang_Type_getTemplateArgumentAsType (libclang.bound_clang_Type_getTemplateArgumentAsType)
/* Every parse, and every PCH build, starts with an index: creating one loads
 * libclang first, wherever extraction code does it. */
#define clang_createIndex (libclang_require(), libclang.bound_clang_createIndex)
#define clang_defaultSaveOptions (libclang.bound_clang_defaultSaveOptions)
#define clang_disposeCXTUResourceUsage (libclang.bound_clang_disposeCXTUResourceUsage)
#define clang_disposeDiagnostic (libclang.bound_clang_disposeDiagnostic)
#define clang_disposeIndex (libclang.bound_clang_disposeIndex)
#define clang_disposeSourceRangeList (libclang.bound_clang_disposeSourceRangeList)
#define clang_disposeString (libclang.bound_clang_disposeString)
#define clang_disposeTranslationUnit (libclang.bound_clang_disposeTranslationUnit)
#define clang_equalCursors (libclang.bound_clang_equalCursors)
#define clang_equalRanges (libclang.bound_clang_equalRanges)
#define clang_getArgType (libclang.bound_clang_getArgType)
#define clang_getCXTUResourceUsage (libclang.bound_clang_getCXTUResourceUsage)
#define clang_getCString (libclang.bound_clang_getCString)
#define clang_getCanonicalType (libclang.bound_clang_getCanonicalType)
#define clang_getCursorBinaryOperatorKind (libclang.bound_clang_getCursorBinaryOperatorKind)
#define clang_getCursorDefinition (libclang.bound_clang_getCursorDefinition)
#define clang_getCursorExtent (libclang.bound_clang_getCursorExtent)
#define clang_getCursorKind (libclang.bound_clang_getCursorKind)
#define clang_getCursorLinkage (libclang.bound_clang_getCursorLinkage)
#define clang_getCursorLocation (libclang.bound_clang_getCursorLocation)
#define clang_getCursorReferenced (libclang.bound_clang_getCursorReferenced)
#define clang_getCursorResultType (libclang.bound_clang_getCursorResultType)
#define clang_getCursorSemanticParent (libclang.bound_clang_getCursorSemanticParent)
#define clang_getCursorSpelling (libclang.bound_clang_getCursorSpelling)
#define clang_getCursorType (libclang.bound_clang_getCursorType)
#define clang_getCursorUSR (libclang.bound_clang_getCursorUSR)
#define clang_getCursorUnaryOperatorKind (libclang.bound_clang_getCursorUnaryOperatorKind)
#define clang_getDiagnostic (libclang.bound_clang_getDiagnostic)
#define clang_getDiagnosticLocation (libclang.bound_clang_getDiagnosticLocation)
#define clang_getDiagnosticSeverity (libclang.bound_clang_getDiagnosticSeverity)
#define clang_getDiagnosticSpelling (libclang.bound_clang_getDiagnosticSpelling)
#define clang_getEnumConstantDeclValue (libclang.bound_clang_getEnumConstantDeclValue)
#define clang_getEnumDeclIntegerType (libclang.bound_clang_getEnumDeclIntegerType)
#define clang_getExpansionLocation (libclang.bound_clang_getExpansionLocation)
#define clang_getFile (libclang.bound_clang_getFile)
#define clang_getFileContents (libclang.bound_clang_getFileContents)
#define clang_getFileLocation (libclang.bound_clang_getFileLocation)
#define clang_getFileName (libclang.bound_clang_getFileName)
#define clang_getInclusions (libclang.bound_clang_getInclusions)
#define clang_getNullCursor (libclang.bound_clang_getNullCursor)
#define clang_getNumArgTypes (libclang.bound_clang_getNumArgTypes)
#define clang_getNumDiagnostics (libclang.bound_clang_getNumDiagnostics)
#define clang_getNumOverloadedDecls (libclang.bound_clang_getNumOverloadedDecls)
#define clang_getOverloadedDecl (libclang.bound_clang_getOverloadedDecl)
#define clang_getPointeeType (libclang.bound_clang_getPointeeType)
#define clang_getRangeEnd (libclang.bound_clang_getRangeEnd)
#define clang_getRangeStart (libclang.bound_clang_getRangeStart)
#define clang_getResultType (libclang.bound_clang_getResultType)
#define clang_getSpecializedCursorTemplate (libclang.bound_clang_getSpecializedCursorTemplate)
#define clang_getSkippedRanges (libclang.bound_clang_getSkippedRanges)
#define clang_getSpellingLocation (libclang.bound_clang_getSpellingLocation)
#define clang_getTranslationUnitCursor (libclang.bound_clang_getTranslationUnitCursor)
#define clang_getTypeDeclaration (libclang.bound_clang_getTypeDeclaration)
#define clang_getTypeSpelling (libclang.bound_clang_getTypeSpelling)
#define clang_getTypedefDeclUnderlyingType (libclang.bound_clang_getTypedefDeclUnderlyingType)
#define clang_getUnqualifiedType (libclang.bound_clang_getUnqualifiedType)
#define clang_isConstQualifiedType (libclang.bound_clang_isConstQualifiedType)
#define clang_isCursorDefinition (libclang.bound_clang_isCursorDefinition)
#define clang_isInvalidDeclaration (libclang.bound_clang_isInvalidDeclaration)
#define clang_isDeclaration (libclang.bound_clang_isDeclaration)
#define clang_isExpression (libclang.bound_clang_isExpression)
#define clang_isTranslationUnit (libclang.bound_clang_isTranslationUnit)
#define clang_parseTranslationUnit2 (libclang.bound_clang_parseTranslationUnit2)
#define clang_saveTranslationUnit (libclang.bound_clang_saveTranslationUnit)
#define clang_visitChildren (libclang.bound_clang_visitChildren)

#endif
