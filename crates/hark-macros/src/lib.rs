//! The `#[tool]` attribute macro of `hark-tools`. Use it through `hark_tools::tool`.
//!
//! See [`macro@tool`] for what it reads and what it generates, and the user guide's
//! `docs/guide/inputs-and-outputs.md` for typed inputs and outputs in use.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, ItemFn, Lit, Meta, MetaNameValue, Pat,
    PathArguments, ReturnType, Token, Type, parse_macro_input,
};

/// Builds a tool from an `async fn` with named parameters.
///
/// The function stays as written. Beside it the macro generates:
/// - `<PascalName>Args`, the input struct (`Deserialize` + `JsonSchema`), one field per
///   parameter, with the parameter's description and limits;
/// - `<name>_tool() -> Result<hark_tools::ToolSpec, hark_tools::BuildError>`, the tool.
///
/// What it reads:
/// - **Name**: the function's name; `#[tool(name = "...")]` changes it.
/// - **Description**: the doc comment up to its arguments section (`# Arguments`, `# Args`,
///   `Args:` or `Arguments:`); `#[tool(description = "...")]` changes it.
/// - **Argument descriptions**: lines of that section shaped `` * `name` - text `` (rustdoc
///   style) or `name: text` (Google style); or `#[arg(description = "...")]` on the parameter.
/// - **Limits**: `#[arg(...)]` on a parameter takes everything `#[schemars(...)]` takes
///   (`range(min = 1, max = 12)`, `length(min = 1, max = 40)`, `regex(pattern = "...")`, …), plus
///   `default = <expr>` for an argument the model may leave out. `#[schemars(...)]` and
///   `#[serde(...)]` on a parameter are passed to the field as they are.
/// - **Types**: `Option<T>` parameters are optional; `jiff::civil::Date`, `Time` and `DateTime`
///   (and their `Option`s) get a string schema with `format` by themselves; `hark_tools::Phone`
///   is a phone number.
/// - **Context**: a parameter typed `&ToolContext` gets the call's context and is not an argument.
/// - **Unknown arguments**: an argument that is not a parameter (or a field of a nested struct
///   that the struct does not have) is refused, also for a function without parameters.
/// - **One input model**: a single parameter marked `#[input]` is the whole input type.
/// - **Output**: `Result<O, ToolError>` (or plain `O`) makes `O` the output; `()` (or any type
///   that serialises to nothing but `null`, like a unit struct) makes it `Done` (`{"ok": true}`). A function returning `serde_json::Value` must give
///   `#[tool(output = Type)]`, else it does not compile: "name its output".
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    match expand(attr.into(), function) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

#[derive(Default)]
struct ToolOptions {
    name: Option<String>,
    description: Option<String>,
    output: Option<Type>,
}

fn parse_options(attr: TokenStream2) -> syn::Result<ToolOptions> {
    let mut options = ToolOptions::default();
    let metas = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(attr)?;
    for meta in metas {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match key.as_str() {
            "name" => options.name = Some(lit_str(&meta.value)?),
            "description" => options.description = Some(lit_str(&meta.value)?),
            "output" => {
                let ty: Type = match &meta.value {
                    Expr::Path(p) => Type::Path(syn::TypePath {
                        qself: None,
                        path: p.path.clone(),
                    }),
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => s.parse()?,
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "output = takes a type, like output = Order",
                        ));
                    }
                };
                options.output = Some(ty);
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    &meta.path,
                    "#[tool] takes name = \"...\", description = \"...\" and output = Type",
                ));
            }
        }
    }
    Ok(options)
}

fn lit_str(expr: &Expr) -> syn::Result<String> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.value()),
        other => Err(syn::Error::new_spanned(other, "expected a string literal")),
    }
}

fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(MetaNameValue {
                value:
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }),
                ..
            }) => Some(s.value()),
            _ => None,
        })
        .flat_map(|s| {
            s.lines()
                .map(|l| l.strip_prefix(' ').unwrap_or(l).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn is_arguments_heading(line: &str) -> bool {
    let t = line.trim().trim_start_matches('#').trim();
    matches!(
        t,
        "Arguments" | "Args" | "Arguments:" | "Args:" | "Parameters" | "Parameters:"
    )
}

/// Joins doc lines: lines of a paragraph with a space, paragraphs with a blank line.
fn join_paragraphs(lines: &[String]) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines {
        let t = line.trim();
        if t.is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(t);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    paragraphs.join("\n\n")
}

/// Splits the doc into the tool description and the argument descriptions.
fn split_doc(lines: &[String]) -> (String, Vec<(String, String)>) {
    let Some(at) = lines.iter().position(|l| is_arguments_heading(l)) else {
        return (join_paragraphs(lines), Vec::new());
    };
    let description = join_paragraphs(&lines[..at]);
    let mut args: Vec<(String, String)> = Vec::new();
    for line in &lines[at + 1..] {
        let t = line.trim();
        if t.starts_with('#') {
            break;
        }
        if t.is_empty() {
            continue;
        }
        let item = t.strip_prefix("* ").or_else(|| t.strip_prefix("- "));
        let body = item.unwrap_or(t);
        let parsed = if let Some(rest) = body.strip_prefix('`') {
            rest.split_once('`').map(|(name, text)| {
                let text = text.trim_start().trim_start_matches(['-', ':', '–']).trim();
                (name.to_string(), text.to_string())
            })
        } else {
            body.split_once(':').and_then(|(name, text)| {
                let name = name.split_whitespace().next().unwrap_or("");
                let ok = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                ok.then(|| (name.to_string(), text.trim().to_string()))
            })
        };
        match parsed {
            Some(entry) => args.push(entry),
            None => {
                if let Some(last) = args.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(t);
                }
            }
        }
    }
    (description, args)
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn generic_arg(segment: &syn::PathSegment, index: usize) -> Option<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .nth(index),
        _ => None,
    }
}

fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => last_segment(&r.elem).is_some_and(|s| s.ident == "ToolContext"),
        _ => false,
    }
}

/// The schema helper for jiff civil types, if the type is one (or an `Option` of one).
fn jiff_schema(ty: &Type) -> Option<&'static str> {
    let seg = last_segment(ty)?;
    let (name, optional) = if seg.ident == "Option" {
        (last_segment(generic_arg(seg, 0)?)?.ident.to_string(), true)
    } else {
        (seg.ident.to_string(), false)
    };
    Some(match (name.as_str(), optional) {
        ("Date", false) => "::hark_tools::schema::date",
        ("Date", true) => "::hark_tools::schema::optional_date",
        ("Time", false) => "::hark_tools::schema::time",
        ("Time", true) => "::hark_tools::schema::optional_time",
        ("DateTime", false) => "::hark_tools::schema::datetime",
        ("DateTime", true) => "::hark_tools::schema::optional_datetime",
        _ => return None,
    })
}

fn pascal(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

enum OutputKind {
    Unit,
    Type(Box<Type>),
}

fn expand(attr: TokenStream2, mut function: ItemFn) -> syn::Result<TokenStream2> {
    let options = parse_options(attr)?;
    let sig = &function.sig;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            sig.fn_token,
            "#[tool] needs an async fn: write `async fn`",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "a #[tool] function cannot be generic",
        ));
    }
    let fn_name = sig.ident.clone();
    let tool_name = options.name.clone().unwrap_or_else(|| fn_name.to_string());
    let (doc_description, doc_args) = split_doc(&doc_lines(&function.attrs));
    let description = options.description.clone().unwrap_or(doc_description);
    let vis = function.vis.clone();

    // The output type.
    let (fallible, output_kind) = match &sig.output {
        ReturnType::Default => (false, OutputKind::Unit),
        ReturnType::Type(_, ty) => {
            let seg = last_segment(ty);
            match seg {
                Some(s) if s.ident == "Result" => {
                    let ok = generic_arg(s, 0).cloned().ok_or_else(|| {
                        syn::Error::new_spanned(ty, "write the result as Result<Output, ToolError>")
                    })?;
                    (true, classify_output(ok))
                }
                _ => (false, classify_output((**ty).clone())),
            }
        }
    };
    let output_expr = match (&options.output, &output_kind) {
        (Some(ty), _) => quote!(::hark_tools::Output::of::<#ty>()),
        (None, OutputKind::Unit) => quote!(::hark_tools::Output::done()),
        (None, OutputKind::Type(ty)) => {
            if last_segment(ty).is_some_and(|s| s.ident == "Value") {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!(
                        "{tool_name} returns a JSON value, so name its output: add #[tool(output = YourType)]"
                    ),
                ));
            }
            quote!(::hark_tools::Output::of::<#ty>())
        }
    };

    // The parameters.
    let args_ident = format_ident!("{}Args", pascal(&fn_name.to_string()));
    let mut fields = Vec::new();
    let mut call_args = Vec::new();
    let mut defaults = Vec::new();
    let mut input_model: Option<Type> = None;
    let mut arg_count = 0usize;
    for input in function.sig.inputs.iter_mut() {
        let FnArg::Typed(pat_type) = input else {
            return Err(syn::Error::new_spanned(
                input,
                "a #[tool] function cannot take self",
            ));
        };
        let Pat::Ident(pat_ident) = &*pat_type.pat else {
            return Err(syn::Error::new_spanned(
                &pat_type.pat,
                "give this parameter a plain name",
            ));
        };
        let ident = pat_ident.ident.clone();
        let ty = (*pat_type.ty).clone();
        // Take our attributes off the parameter: Rust does not allow them there.
        let attrs = std::mem::take(&mut pat_type.attrs);
        let mut field_attrs = Vec::new();
        let mut description: Option<String> = None;
        let mut is_input = false;
        let mut has_default = false;
        for attr in attrs {
            if attr.path().is_ident("input") {
                is_input = true;
            } else if attr.path().is_ident("arg") {
                let list = attr.meta.require_list()?;
                let metas =
                    Punctuated::<Meta, Token![,]>::parse_terminated.parse2(list.tokens.clone())?;
                let mut pass = Vec::new();
                for meta in metas {
                    match &meta {
                        Meta::NameValue(nv) if nv.path.is_ident("description") => {
                            description = Some(lit_str(&nv.value)?);
                        }
                        Meta::NameValue(nv) if nv.path.is_ident("default") => {
                            let default_fn = format_ident!("__hark_default_{}_{}", fn_name, ident);
                            let value = &nv.value;
                            defaults.push(quote! {
                                #[doc(hidden)]
                                #[allow(non_snake_case)]
                                fn #default_fn() -> #ty { #value }
                            });
                            let path = default_fn.to_string();
                            field_attrs.push(quote!(#[serde(default = #path)]));
                            has_default = true;
                        }
                        _ => pass.push(meta),
                    }
                }
                if !pass.is_empty() {
                    field_attrs.push(quote!(#[schemars(#(#pass),*)]));
                }
            } else if attr.path().is_ident("schemars") || attr.path().is_ident("serde") {
                field_attrs.push(quote!(#attr));
            } else {
                pat_type.attrs.push(attr);
            }
        }
        if is_context(&ty) {
            call_args.push(quote!(context));
            continue;
        }
        arg_count += 1;
        if is_input {
            input_model = Some(ty.clone());
            call_args.push(quote!(input));
            continue;
        }
        let description = description.or_else(|| {
            doc_args
                .iter()
                .find(|(n, _)| ident == n)
                .map(|(_, d)| d.clone())
        });
        if let Some(d) = description {
            field_attrs.push(quote!(#[doc = #d]));
        } else {
            field_attrs.push(quote!(#[allow(missing_docs)]));
        }
        if let Some(with) = jiff_schema(&ty) {
            field_attrs.push(quote!(#[schemars(schema_with = #with)]));
            // A schema of its own hides the `Option` from schemars, which would then list the
            // argument as required: `default` keeps it one the model may leave out, as for any
            // other `Option`.
            if with.contains("optional_") && !has_default {
                field_attrs.push(quote!(#[serde(default)]));
            }
            // A civil date-time has no zone for an offset: jiff would drop one silently.
            if with.ends_with("::optional_datetime") {
                field_attrs.push(quote!(#[serde(
                    deserialize_with = "::hark_tools::schema::deserialize_optional_datetime"
                )]));
            } else if with.ends_with("::datetime") {
                field_attrs.push(quote!(#[serde(
                    deserialize_with = "::hark_tools::schema::deserialize_datetime"
                )]));
            }
        }
        fields.push(quote! { #(#field_attrs)* pub #ident: #ty });
        call_args.push(quote!(input.#ident));
    }
    if input_model.is_some() && arg_count != 1 {
        return Err(syn::Error::new(
            Span::call_site(),
            "#[input] marks the one input model: the function then takes only it (and &ToolContext)",
        ));
    }

    let tool_fn = format_ident!("{}_tool", fn_name);
    let call = quote!(#fn_name(#(#call_args),*).await);
    let result = if fallible {
        quote!(#call?)
    } else {
        quote!(#call)
    };
    let (input_ty, struct_def) = match input_model {
        Some(ty) => (quote!(#ty), quote!()),
        None => {
            let doc = format!("The arguments of the `{tool_name}` tool (built by `#[tool]`).");
            (
                quote!(#args_ident),
                quote! {
                    #[doc = #doc]
                    #[derive(::hark_tools::__private::serde::Deserialize, ::hark_tools::__private::schemars::JsonSchema)]
                    #[serde(crate = "::hark_tools::__private::serde")]
                    #[schemars(crate = "::hark_tools::__private::schemars")]
                    #[schemars(transform = ::hark_tools::schema::generated_arguments)]
                    #vis struct #args_ident {
                        #(#fields,)*
                    }
                    #(#defaults)*
                },
            )
        }
    };
    let tool_doc = format!(
        "The `{tool_name}` tool, built by `#[tool]` from [`{fn_name}`]. Fails when its schema breaks a rule of \"The schema the model reads\"."
    );
    Ok(quote! {
        #function

        #struct_def

        #[doc = #tool_doc]
        #vis fn #tool_fn() -> ::core::result::Result<::hark_tools::ToolSpec, ::hark_tools::BuildError> {
            fn __hark_run<'a>(
                input: #input_ty,
                context: &'a ::hark_tools::ToolContext,
            ) -> ::hark_tools::__private::BoxFuture<'a, ::core::result::Result<::hark_tools::__private::serde_json::Value, ::hark_tools::ToolError>> {
                let _ = &context;
                ::std::boxed::Box::pin(async move {
                    let output = #result;
                    ::hark_tools::to_result(output)
                })
            }
            ::hark_tools::ToolSpec::typed::<#input_ty>(
                #tool_name,
                #description,
                #output_expr,
                ::hark_tools::runner(__hark_run),
            )
        }
    })
}

fn classify_output(ty: Type) -> OutputKind {
    match &ty {
        Type::Tuple(t) if t.elems.is_empty() => OutputKind::Unit,
        _ => OutputKind::Type(Box::new(ty)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    #[test]
    fn description_stops_at_the_arguments_section() {
        let (d, args) = split_doc(&lines(
            "Book a table.\nAt the restaurant.\n\nSecond paragraph.\n\n# Arguments\n\n* `day` - The day the caller wants.\n* `party` - How many\n  people.",
        ));
        assert_eq!(d, "Book a table. At the restaurant.\n\nSecond paragraph.");
        assert_eq!(
            args,
            vec![
                ("day".to_string(), "The day the caller wants.".to_string()),
                ("party".to_string(), "How many people.".to_string())
            ]
        );
    }

    #[test]
    fn google_style_args() {
        let (d, args) = split_doc(&lines(
            "Look it up.\n\nArgs:\n    order_id: The order id.\n",
        ));
        assert_eq!(d, "Look it up.");
        assert_eq!(
            args,
            vec![("order_id".to_string(), "The order id.".to_string())]
        );
    }

    #[test]
    fn pascal_case() {
        assert_eq!(pascal("book_table"), "BookTable");
    }
}
