from studio.roles import roles_of


def roles(request):
    return {"user_roles": sorted(roles_of(request.user)) if hasattr(request, "user") else []}
