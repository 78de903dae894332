; Protocol Buffers symbols. Conventions: see core/parse.py.
; Messages are structs (nested messages nest: Order.Item), enums are enums, services are
; interfaces whose rpcs are methods (OrderService.CreateOrder). Fields, enum values,
; oneofs, options, `extend` blocks and the package line are not symbols.

(message (message_name (identifier) @name)) @definition.struct
(enum (enum_name (identifier) @name)) @definition.enum
(service (service_name (identifier) @name)) @definition.interface
(rpc (rpc_name (identifier) @name)) @definition.method

(import path: (string) @import)
