from studio.navigation import nav_links_for
from studio.roles import roles_of


def roles(request):
    user = getattr(request, "user", None)
    if user is None:
        return {"user_roles": [], "nav_links": []}
    links = nav_links_for(user, request.path) if user.is_authenticated else []
    return {"user_roles": sorted(roles_of(user)), "nav_links": links}
