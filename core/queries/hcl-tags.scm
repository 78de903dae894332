; HCL / Terraform symbols. Conventions: see core/parse.py.
; Only top-level blocks that declare a name Terraform code refers to are symbols:
;   resource "aws_s3_bucket" "logs"  -> class  aws_s3_bucket.logs   (its address)
;   data "aws_iam_policy" "p"        -> class  data.aws_iam_policy.p
;   ephemeral "random_password" "db" -> class  ephemeral.random_password.db
;   source "amazon-ebs" "ubuntu"     -> class  source.amazon-ebs.ubuntu  (Packer, .pkr.hcl)
;   module "vpc"                     -> module vpc
;   variable "region", output "id"   -> constant region, id
; Not symbols: locals entries and attributes (config keys), nested blocks (lifecycle,
; dynamic "ingress"), provider/terraform/backend/moved/import blocks (they configure
; plugins or state and declare no name of their own).

; Resources: the type label prefixes the name label.
(config_file (body (block
  (identifier) @_kind
  .
  (string_lit (template_literal) @receiver)
  .
  (string_lit (template_literal) @name)
  .
  (block_start)
  (#eq? @_kind "resource")) @definition.class))

; Data sources, ephemeral resources and Packer sources live in their own namespace
; (`data.x.y`, `source.amazon-ebs.x`): the block is also a naming scope named by its keyword.
(config_file (body (block
  (identifier) @name
  .
  (string_lit (template_literal))
  .
  (string_lit (template_literal))
  .
  (block_start)
  (#any-of? @name "data" "ephemeral" "source")) @scope.module))
(config_file (body (block
  (identifier) @_kind
  .
  (string_lit (template_literal) @receiver)
  .
  (string_lit (template_literal) @name)
  .
  (block_start)
  (#any-of? @_kind "data" "ephemeral" "source")) @definition.class))

; Modules, variables and outputs: one label (quoted, or a bare identifier).
(config_file (body (block
  (identifier) @_kind
  .
  [(string_lit (template_literal) @name) (identifier) @name]
  .
  (block_start)
  (#eq? @_kind "module")) @definition.module))
(config_file (body (block
  (identifier) @_kind
  .
  [(string_lit (template_literal) @name) (identifier) @name]
  .
  (block_start)
  (#any-of? @_kind "variable" "output")) @definition.constant))

; A variable's or output's `description` is its docstring (a later pattern: it wins).
(config_file (body (block
  (identifier) @_kind
  .
  [(string_lit (template_literal) @name) (identifier) @name]
  .
  (block_start)
  (body (attribute
    (identifier) @_attr
    (expression (literal_value (string_lit) @doc))))
  (#any-of? @_kind "variable" "output")
  (#eq? @_attr "description")) @definition.constant))

; A module's source is what it imports: "./modules/vpc", "terraform-aws-modules/vpc/aws".
(config_file (body (block
  (identifier) @_kind
  (body (attribute
    (identifier) @_attr
    (expression (literal_value (string_lit (template_literal) @import)))))
  (#eq? @_kind "module")
  (#eq? @_attr "source"))))
